import { Elysia } from 'elysia'
import { apiDocs, consoleError, consoleRoutes } from './console/index.ts'
import { GatewayError } from './core/errors.ts'
import { anthropicErrorResponse, isAnthropicRequest } from './protocols/anthropic/error-response.ts'
import { anthropicRoutes, createMessage } from './protocols/anthropic/index.ts'
import { geminiErrorResponse } from './protocols/gemini/error-response.ts'
import { geminiRoutes, isGeminiRequest } from './protocols/gemini/index.ts'
import { completeChat, openAiChatRoutes } from './protocols/openai-chat/index.ts'
import { openAiErrorResponse } from './protocols/openai-chat/error-response.ts'
import { createResponse, openAiResponsesRoutes } from './protocols/openai-responses/index.ts'
import { metricsRoutes } from './edge/metrics.ts'
import type { Services } from './edge/services.ts'

/** Mount every protocol and the operator routes; one place decides what an unknown path or a crash looks like. */
export function createApp(services: Services) {
  return new Elysia()
    .onError(({ code, error, request }) => {
      const inConsole = consoleError(services, request, error)
      if (inConsole) return inConsole
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
    .use(apiDocs())
    .use(metricsRoutes(services))
}

/**
 * The model endpoints' POST routes, for Bun.serve's own `routes`: Bun matches these paths natively and calls the
 * handler with no JS routing in between. They are the handlers Elysia mounts above (which keep serving `app.handle`,
 * tests and the docs); what the shortcut skips is Elysia's per-request work — its global request hooks, route lookup
 * and context object — which measured ~2-3% of the main thread's CPU per request (bench/, 2026-11-23). Each handler
 * answers every error itself, so nothing here needs Elysia's onError. Other methods on these paths, and every other
 * path, fall through to Elysia.
 */
export function nativeRoutes(services: Services) {
  return {
    '/v1/chat/completions': { POST: (request: Request) => completeChat(services, request) },
    '/v1/responses': { POST: (request: Request) => createResponse(services, request) },
    '/v1/messages': { POST: (request: Request) => createMessage(services, request) },
  }
}
