import type { GatewayError } from '../../core/errors.ts'
import { errorResponse } from '../shared/error-response.ts'
import { encodeAnthropicError } from './encode-error.ts'
import { encodeAnthropicRateLimitHeaders } from './rate-limit-headers.ts'

/**
 * An error as Anthropic sends it: the body, plus `request-id`, the header Anthropic's SDKs read the id from, and
 * on a refusal by the key's own limits `anthropic-ratelimit-*`.
 */
export function anthropicErrorResponse(failure: GatewayError, requestId?: string): Response {
  const response = errorResponse(failure, (error) => encodeAnthropicError(error, requestId), requestId)
  if (requestId) response.headers.set('request-id', requestId)
  for (const [name, value] of Object.entries(encodeAnthropicRateLimitHeaders(failure.rateLimit))) response.headers.set(name, value)
  return response
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
