import { toGatewayError } from '../../core/errors.ts'
import { jsonResponse } from '../../server/respond.ts'
import { encodeOpenAiError } from './encode-error.ts'

export function openAiErrorResponse(error: unknown, requestId?: string): Response {
  const failure = toGatewayError(error)
  const headers: Record<string, string> = { ...failure.headers }
  if (requestId) headers['x-request-id'] = requestId
  if (failure.retryAfter !== undefined) headers['retry-after'] = String(Math.ceil(failure.retryAfter))
  return jsonResponse(encodeOpenAiError(failure), failure.status, headers)
}
