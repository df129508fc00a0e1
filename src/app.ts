import { Elysia } from 'elysia'
import { consoleRoutes } from './console/index.ts'
import { GatewayError } from './core/errors.ts'
import { anthropicErrorResponse, isAnthropicRequest } from './protocols/anthropic/error-response.ts'
import { anthropicRoutes } from './protocols/anthropic/index.ts'
import { geminiErrorResponse } from './protocols/gemini/error-response.ts'
import { geminiRoutes, isGeminiRequest } from './protocols/gemini/index.ts'
import { openAiChatRoutes } from './protocols/openai-chat/index.ts'
import { openAiErrorResponse } from './protocols/openai-chat/error-response.ts'
import { openAiResponsesRoutes } from './protocols/openai-responses/index.ts'
import { metricsRoutes } from './server/metrics.ts'
import type { Services } from './server/services.ts'

/** Mount every protocol and the operator routes; one place decides what an unknown path or a crash looks like. */
export function createApp(services: Services) {
  return new Elysia()
    .onError(({ code, error, request }) => {
      // Gemini and Anthropic clients parse only their vendor's error shape; everything else gets OpenAI's.
      const render = isGeminiRequest(request) ? geminiErrorResponse : isAnthropicRequest(request) ? anthropicErrorResponse : openAiErrorResponse
      if (code === 'NOT_FOUND') return render(new GatewayError('not_found', 'Unknown path', { code: 'unknown_path' }))
      if (code === 'PARSE' || code === 'VALIDATION') return render(new GatewayError('invalid_request', String((error as Error).message)))
      services.logger.error({ err: (error as Error)?.message, code }, 'unhandled error')
      return render(error)
    })
    .get('/healthz', () => ({ status: 'ok' }))
    .head('/', () => new Response(null, { status: 200 }))
    .use(openAiChatRoutes(services))
    .use(openAiResponsesRoutes(services))
    .use(geminiRoutes(services))
    .use(anthropicRoutes(services))
    .use(consoleRoutes(services))
    .use(metricsRoutes(services))
}
