import type { GatewayError } from '../../core/errors.ts'

const typeByKind: Record<GatewayError['kind'], string> = {
  invalid_request: 'invalid_request_error',
  authentication: 'authentication_error',
  permission: 'permission_error',
  insufficient_balance: 'insufficient_quota',
  not_found: 'not_found_error',
  request_too_large: 'invalid_request_error',
  rate_limit: 'rate_limit_error',
  upstream: 'upstream_error',
  upstream_unavailable: 'upstream_error',
  timeout: 'timeout_error',
  internal: 'server_error',
}

/** `{"error":{"message","type","param","code"}}`, the shape the OpenAI SDKs parse. */
export function encodeOpenAiError(error: GatewayError): {
  error: { message: string; type: string; param: string | null; code: string | null }
} {
  return { error: { message: error.message, type: typeByKind[error.kind], param: error.param ?? null, code: error.code ?? null } }
}
