import type { HeaderReader } from '../core/http1-head.ts'
import { readErrorCode } from '../core/error-codes.ts'
import { GatewayError } from '../core/errors.ts'
import { scrubUpstreamText } from './scrub-upstream-text.ts'

/**
 * How an upstream's failure looks to our client. The client's own mistakes (400, 404, 413, 422) pass through with
 * the upstream's message; our credentials being refused (401/403) is the operator's problem, not the client's, so it
 * becomes a 502 with a fixed message (the upstream's text, which may quote our key, goes to the log only); 429 and
 * 5xx keep their meaning. The upstream's text is capped and scrubbed of credentials (scrub-upstream-text.ts) before
 * any client or log sees it.
 */
export function mapUpstreamStatus(
  status: number,
  message: string | undefined,
  detail: { code?: string; param?: string } = {},
  headers?: HeaderReader,
): GatewayError {
  const code = detail.code === undefined ? undefined : readErrorCode(scrubUpstreamText(detail.code))
  const param = detail.param === undefined ? undefined : scrubUpstreamText(detail.param)
  // Size-capped and stripped of anything key-shaped, here where every upstream's error text passes (decode-error.ts).
  const text = message === undefined ? `Upstream answered HTTP ${status}` : scrubUpstreamText(message)
  const retryAfter = parseRetryAfter(headers)
  if (status === 400 || status === 404 || status === 422) return new GatewayError('invalid_request', text, { code, param, status: 400 })
  if (status === 413) return new GatewayError('request_too_large', text, { code })
  if (status === 401 || status === 403) {
    return new GatewayError('upstream', upstreamRefusedCredentials, {
      code: 'upstream_auth',
      logDetail: `upstream HTTP ${status}: ${text}`,
    })
  }
  if (status === 429) return new GatewayError('rate_limit', `Upstream is rate limiting: ${text}`, { code, retryAfter })
  if (status === 503 || status === 529)
    return new GatewayError('upstream_unavailable', `Upstream unavailable: ${text}`, { code, retryAfter })
  if (status === 504 || status === 408) return new GatewayError('timeout', `Upstream timed out: ${text}`, { code })
  return new GatewayError('upstream', `Upstream error (HTTP ${status}): ${text}`, { code })
}

/** What a client is told when the upstream refuses the gateway's own key: nothing of the upstream's answer. */
export const upstreamRefusedCredentials =
  "The upstream refused the gateway's credentials; the gateway's operator must check this provider's API key."

/** Seconds from `retry-after-ms` or `retry-after` (seconds or an HTTP date). */
function parseRetryAfter(headers?: HeaderReader): number | undefined {
  if (!headers) return undefined
  const milliseconds = Number(headers.get('retry-after-ms'))
  if (headers.get('retry-after-ms') && Number.isFinite(milliseconds)) return milliseconds / 1000
  const value = headers.get('retry-after')
  if (!value) return undefined
  const seconds = Number(value)
  if (Number.isFinite(seconds)) return seconds
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, (date - Date.now()) / 1000)
}
