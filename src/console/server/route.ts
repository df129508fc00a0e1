import { GatewayError } from '../../core/errors.ts'
import { parseJsonBody, type Json } from '../../protocols/shared/validate.ts'
import type { Services } from '../../edge/services.ts'
import { consoleErrorResponse, consoleJson, notFound } from './respond.ts'
import { checkCsrf, checkSameOrigin, resolveViewer, type Viewer } from './viewer.ts'

export interface ConsoleContext {
  viewer: Viewer
  params: Record<string, string>
  query: URLSearchParams
  body: Json
  request: Request
}

export type ConsoleHandler = (context: ConsoleContext) => Promise<unknown>

/** A JSON body (an empty one reads as `{}`); only JSON, which a cross-site HTML form cannot send. */
export async function readJsonBody(request: Request): Promise<Json> {
  const text = await request.text()
  if (text.trim() === '') return {}
  if (!request.headers.get('content-type')?.toLowerCase().startsWith('application/json')) {
    throw new GatewayError('invalid_request', 'Send the body as JSON (Content-Type: application/json).', { status: 415, code: 'unsupported_media_type' })
  }
  return parseJsonBody(text)
}

/**
 * Wrap a console API handler: session cookie (never an API key), CSRF token and same origin on every state
 * change, admin-only routes invisible (404) to account users, and errors rendered as console JSON.
 */
export function consoleRoute(services: Services, handler: ConsoleHandler, options: { admin?: boolean } = {}) {
  return async ({ request, params }: { request: Request; params: Record<string, string> }): Promise<Response> => {
    try {
      const viewer = await resolveViewer(services, request)
      const changes = request.method !== 'GET' && request.method !== 'HEAD'
      if (changes) {
        checkSameOrigin(request)
        checkCsrf(viewer, request)
      }
      if (options.admin && viewer.user.role !== 'admin') throw notFound()
      const body = changes ? await readJsonBody(request) : {}
      const result = await handler({ viewer, params, query: new URL(request.url).searchParams, body, request })
      return result instanceof Response ? result : consoleJson(result)
    } catch (error) {
      return consoleErrorResponse(error, services.logger)
    }
  }
}
