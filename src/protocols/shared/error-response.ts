import type { GatewayError } from '../../core/errors.ts'
import { jsonResponse } from '../../edge/respond.ts'

/**
 * A failure (already through the funnel, report-failure.ts) as an HTTP error response: the protocol supplies the
 * body, the status and headers are common.
 */
export function errorResponse(failure: GatewayError, encode: (failure: GatewayError) => unknown, requestId?: string): Response {
  const headers: Record<string, string> = { ...failure.headers }
  if (requestId) headers['x-request-id'] = requestId
  if (failure.retryAfter !== undefined) headers['retry-after'] = String(Math.ceil(failure.retryAfter))
  return jsonResponse(encode(failure), failure.status, headers)
}
