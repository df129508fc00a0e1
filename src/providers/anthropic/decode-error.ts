import type { HeaderReader } from '../../core/http1-head.ts'
import { GatewayError } from '../../core/errors.ts'
import { mapUpstreamStatus } from '../map-upstream-status.ts'

/** The statuses Anthropic's error types stand for, for errors that arrive inside a 200 stream. */
const statusByType: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
}

function readError(body: string): { type?: string; message?: string } {
  try {
    const parsed = JSON.parse(body) as { error?: { type?: string; message?: string } | string; message?: string }
    if (typeof parsed.error === 'string') return { message: parsed.error }
    return { type: parsed.error?.type, message: parsed.error?.message ?? parsed.message }
  } catch {
    return { message: body.slice(0, 200) || undefined }
  }
}

/** `{"type":"error","error":{"type","message"}}` from an HTTP error response. */
export function decodeAnthropicError(status: number, body: string, headers?: HeaderReader): GatewayError {
  const error = readError(body)
  return mapUpstreamStatus(status, error.message, { code: error.type }, headers)
}

/** An `event: error` in the middle of a stream: the HTTP status was 200, so the error type decides. */
export function decodeAnthropicStreamError(data: string): GatewayError {
  const error = readError(data)
  if (!error.type && !error.message) return new GatewayError('upstream', 'Upstream stream failed')
  return mapUpstreamStatus(statusByType[error.type ?? ''] ?? 500, error.message, { code: error.type })
}
