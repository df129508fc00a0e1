import { jsonResponse } from '../../edge/respond.ts'
import type { Services } from '../../edge/services.ts'
import type { Caller } from '../../relay/types.ts'

/** GET /v1/models: exactly the models the calling key may use, in OpenAI's list shape. */
export function listOpenAiModels(services: Services, key: Caller): Response {
  const created = Math.floor(key.createdAt / 1000)
  const data = services.relay.modelsFor(key).map((model) => ({ id: model.id, object: 'model', created, owned_by: model.ownedBy }))
  return jsonResponse({ object: 'list', data })
}
