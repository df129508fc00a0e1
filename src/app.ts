import { Elysia } from 'elysia'
import { GatewayError } from './core/errors.ts'
import { anthropicRoutes } from './protocols/anthropic/index.ts'
import { anthropicErrorResponse, isAnthropicRequest } from './protocols/anthropic/error-response.ts'
import { listAnthropicModels, retrieveAnthropicModel } from './protocols/anthropic/models.ts'
import { openAiChatRoutes } from './protocols/openai-chat/index.ts'
import { openAiErrorResponse } from './protocols/openai-chat/error-response.ts'
import { listOpenAiModels } from './protocols/openai-chat/models.ts'
import type { Services } from './server/services.ts'

/** Mount every protocol and the operator routes; one place decides what an unknown path or a crash looks like. */
export function createApp(services: Services) {
  return new Elysia()
    .onError(({ code, error, request }) => {
      // Anthropic clients get Anthropic's error shape, even for a path that does not exist.
      const errorResponse = isAnthropicRequest(request) ? anthropicErrorResponse : openAiErrorResponse
      if (code === 'NOT_FOUND') return errorResponse(new GatewayError('not_found', 'Unknown path', { code: 'unknown_path' }))
      if (code === 'PARSE' || code === 'VALIDATION') return errorResponse(new GatewayError('invalid_request', String((error as Error).message)))
      services.logger.error({ err: (error as Error)?.message, code }, 'unhandled error')
      return errorResponse(error)
    })
    .get('/healthz', () => ({ status: 'ok' }))
    .head('/', () => new Response(null, { status: 200 }))
    // One /v1/models for two protocols: Anthropic's SDKs always send `anthropic-version`, OpenAI's never do.
    .get('/v1/models', ({ request }) => (isAnthropicRequest(request) ? listAnthropicModels(services, request) : listOpenAiModels(services, request)))
    .get('/v1/models/:id', ({ request, params }) => (isAnthropicRequest(request)
      ? retrieveAnthropicModel(services, request, params.id)
      : openAiErrorResponse(new GatewayError('not_found', 'Unknown path', { code: 'unknown_path' }))))
    .use(openAiChatRoutes(services))
    .use(anthropicRoutes(services))
}
