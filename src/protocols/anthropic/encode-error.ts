import type { GatewayError } from '../../core/errors.ts'
import { formatSse } from '../../core/sse.ts'

/** Anthropic's error type for each status the gateway can answer with (as its SDKs and Claude Code expect). */
const typeByStatus: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  502: 'api_error',
  503: 'overloaded_error',
  504: 'timeout_error',
  529: 'overloaded_error',
}

function anthropicErrorType(error: GatewayError): string {
  // An empty balance is a billing matter, whatever status it travels with: Claude Code says so to the user.
  if (error.kind === 'insufficient_balance') return 'billing_error'
  return typeByStatus[error.status] ?? (error.status >= 500 ? 'api_error' : 'invalid_request_error')
}

/** `{"type":"error","error":{"type","message"},"request_id"}`, the body Anthropic's SDKs parse. */
export function encodeAnthropicError(error: GatewayError, requestId?: string) {
  return { type: 'error', error: { type: anthropicErrorType(error), message: error.message }, request_id: requestId ?? null }
}

/** The `event: error` that ends a stream that failed midway; the SDK throws it as an APIError of that type. */
export function formatErrorEvent(error: GatewayError, requestId?: string): string {
  return formatSse(JSON.stringify(encodeAnthropicError(error, requestId)), 'error')
}
