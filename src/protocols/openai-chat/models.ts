import { jsonResponse } from '../../edge/respond.ts'
import type { Services } from '../../edge/services.ts'
import type { Caller } from '../../relay/types.ts'

/**
 * GET /v1/models: exactly the models the calling key may use, in OpenAI's list shape. OpenAI's own list does not
 * say what a model serves; `type` (`chat` or `embedding`) does, as OpenAI-compatible hosts that serve both write it.
 */
export function listOpenAiModels(services: Services, key: Caller): Response {
  const created = Math.floor(key.createdAt / 1000)
  const data = services.relay.modelsFor(key).map((model) => ({ id: model.id, object: 'model', created, owned_by: model.ownedBy, type: model.kind }))
  return jsonResponse({ object: 'list', data })
}
