import type { HeaderReader } from '../../core/http1-head.ts'
import { GatewayError } from '../../core/errors.ts'
import { mapUpstreamStatus } from '../map-upstream-status.ts'

interface GeminiErrorBody {
  error?: { code?: number; message?: string; status?: string; details?: { '@type'?: string; retryDelay?: string }[] }
}

/**
 * `{"error":{"code","message","status"}}`, sometimes wrapped in an array (the JSON-array stream format), or
 * anything else an upstream sent. A RetryInfo detail (`"retryDelay":"17s"`) says how long to wait on a 429.
 */
export function decodeGeminiError(status: number, body: string, headers?: HeaderReader): GatewayError {
  let error: GeminiErrorBody['error']
  try {
    const parsed = JSON.parse(body) as GeminiErrorBody | GeminiErrorBody[]
    error = Array.isArray(parsed) ? parsed[0]?.error : parsed.error
  } catch {}
  const message = error?.message ?? (body.slice(0, 200) || undefined)
  const failure = mapUpstreamStatus(status, message, { code: error?.status }, headers)
  const delay = error?.details?.find((detail) => detail['@type']?.endsWith('RetryInfo'))?.retryDelay
  if (failure.retryAfter === undefined && delay && /^\d+(\.\d+)?s$/.test(delay)) {
    return new GatewayError(failure.kind, failure.message, {
      code: failure.code,
      status: failure.status,
      retryAfter: Number(delay.slice(0, -1)),
      logDetail: failure.logDetail,
    })
  }
  return failure
}
