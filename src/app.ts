import { Elysia } from 'elysia'
import { consoleRoutes } from './console/index.ts'
import { GatewayError } from './core/errors.ts'
import { openAiChatRoutes } from './protocols/openai-chat/index.ts'
import { openAiErrorResponse } from './protocols/openai-chat/error-response.ts'
import type { Services } from './server/services.ts'

/** Mount every protocol and the operator routes; one place decides what an unknown path or a crash looks like. */
export function createApp(services: Services) {
  return new Elysia()
    .onError(({ code, error }) => {
      if (code === 'NOT_FOUND') return openAiErrorResponse(new GatewayError('not_found', 'Unknown path', { code: 'unknown_path' }))
      if (code === 'PARSE' || code === 'VALIDATION') return openAiErrorResponse(new GatewayError('invalid_request', String((error as Error).message)))
      services.logger.error({ err: (error as Error)?.message, code }, 'unhandled error')
      return openAiErrorResponse(error)
    })
    .get('/healthz', () => ({ status: 'ok' }))
    .head('/', () => new Response(null, { status: 200 }))
    .use(openAiChatRoutes(services))
    .use(consoleRoutes(services))
}
