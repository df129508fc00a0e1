import { GatewayError } from '../core/errors.ts'
import type { Services } from '../edge/services.ts'
import { serveAnthropicModels } from './anthropic/index.ts'
import { serveGeminiModels } from './gemini/index.ts'
import { isGeminiRequest } from './gemini/read-secret.ts'
import { openAiErrorResponse } from './openai-chat/error-response.ts'
import { serveOpenAiModels } from './openai-chat/index.ts'

/**
 * GET /v1/models and /v1/models/{id}: one route, three protocols' clients, told apart by what each always sends and
 * the others never do — `anthropic-version` (Anthropic's SDKs, Claude Code), a Google API key (`x-goog-api-key` or
 * `?key=`); anything else is an OpenAI client.
 */
export function serveModels(services: Services, request: Request): Promise<Response> | Response {
  if (request.headers.has('anthropic-version')) return serveAnthropicModels(services, request)
  if (isGeminiRequest(request)) return serveGeminiModels(services, request)
  // OpenAI's clients get the list only; a single model is not served to them (as before this route was shared).
  if (new URL(request.url).pathname.startsWith('/v1/models/'))
    return openAiErrorResponse(new GatewayError('not_found', 'Unknown path', { code: 'unknown_path' }))
  return serveOpenAiModels(services, request)
}
