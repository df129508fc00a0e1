import type { GatewayError } from '../../core/errors.ts'

const statusNames: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  413: 'INVALID_ARGUMENT',
  429: 'RESOURCE_EXHAUSTED',
  499: 'CANCELLED',
  500: 'INTERNAL',
  501: 'UNIMPLEMENTED',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
}

/**
 * `{"error":{"code","message","status","details"}}` as Google APIs write it. The field at fault travels as a
 * google.rpc.BadRequest violation and the wait before a retry as google.rpc.RetryInfo, where Gemini clients look.
 */
export function encodeGeminiError(error: GatewayError) {
  const details: Record<string, unknown>[] = []
  if (error.param && error.status === 400)
    details.push({
      '@type': 'type.googleapis.com/google.rpc.BadRequest',
      fieldViolations: [{ field: error.param, description: error.message }],
    })
  if (error.retryAfter !== undefined)
    details.push({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${Math.ceil(error.retryAfter)}s` })
  const status = statusNames[error.status] ?? (error.status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT')
  return { error: { code: error.status, message: error.message, status, ...(details.length && { details }) } }
}
