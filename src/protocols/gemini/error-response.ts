import { toGatewayError } from '../../core/errors.ts'
import { jsonResponse } from '../../server/respond.ts'
import { encodeGeminiError } from './encode-error.ts'

export function geminiErrorResponse(error: unknown, requestId?: string): Response {
  const failure = toGatewayError(error)
  const headers: Record<string, string> = { ...failure.headers }
  if (requestId) headers['x-request-id'] = requestId
  if (failure.retryAfter !== undefined) headers['retry-after'] = String(Math.ceil(failure.retryAfter))
  return jsonResponse(encodeGeminiError(failure), failure.status, headers)
}
