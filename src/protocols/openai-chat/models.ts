import { authenticate, bearerToken } from '../../edge/auth.ts'
import { jsonResponse } from '../../edge/respond.ts'
import type { Services } from '../../edge/services.ts'
import { openAiErrorResponse } from './error-response.ts'

/** GET /v1/models: exactly the models the calling key may use, in OpenAI's list shape. */
export async function listOpenAiModels(services: Services, request: Request): Promise<Response> {
  try {
    const key = await authenticate(services.keys, bearerToken(request))
    const created = Math.floor(key.createdAt / 1000)
    const data = services.relay.modelsFor(key).map((model) => ({ id: model.id, object: 'model', created, owned_by: model.ownedBy }))
    return jsonResponse({ object: 'list', data })
  } catch (error) {
    return openAiErrorResponse(error)
  }
}
