import { GatewayError, toGatewayError } from '../../core/errors.ts'
import { jsonResponse } from '../../server/respond.ts'
import { encodeAnthropicError } from './encode-error.ts'

/** An error as Anthropic sends it: the body, `request-id` (which the SDK reads) and `retry-after` when known. */
export function anthropicErrorResponse(error: unknown, requestId?: string): Response {
  const failure = toGatewayError(error)
  const headers: Record<string, string> = { ...failure.headers }
  if (requestId) headers['request-id'] = requestId
  if (failure.retryAfter !== undefined) headers['retry-after'] = String(Math.ceil(failure.retryAfter))
  return jsonResponse(encodeAnthropicError(failure, requestId), failure.status, headers)
}

/**
 * Whether a request comes from an Anthropic client: its SDKs and Claude Code always send `anthropic-version`,
 * OpenAI's never do. Paths under /v1/messages are Anthropic's whatever the headers say.
 */
export function isAnthropicRequest(request: Request): boolean {
  if (request.headers.has('anthropic-version')) return true
  const path = new URL(request.url).pathname
  return path === '/v1/messages' || path.startsWith('/v1/messages/')
}

export function unknownPathResponse(request: Request): Response {
  const path = new URL(request.url).pathname
  return anthropicErrorResponse(new GatewayError('not_found', `Unknown path: ${request.method} ${path}`, { code: 'unknown_path' }))
}
