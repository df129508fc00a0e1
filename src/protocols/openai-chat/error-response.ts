import type { GatewayError, RateLimitState } from '../../core/errors.ts'
import { errorResponse } from '../shared/error-response.ts'
import { encodeOpenAiError } from './encode-error.ts'

/** An error in OpenAI's shape; a refusal by the key's own limits also carries `x-ratelimit-*`, as OpenAI's 429s do. */
export function openAiErrorResponse(failure: GatewayError, requestId?: string): Response {
  const response = errorResponse(failure, encodeOpenAiError, requestId)
  for (const [name, value] of Object.entries(encodeOpenAiRateLimitHeaders(failure.rateLimit))) response.headers.set(name, value)
  return response
}

/**
 * `x-ratelimit-{limit,remaining,reset}-{requests,tokens}` as OpenAI sends them (resets like `1s`, `6m0s`, `20ms`),
 * added to `headers` (a fresh object by default).
 */
export function encodeOpenAiRateLimitHeaders(
  state: RateLimitState | undefined,
  headers: Record<string, string> = {},
): Record<string, string> {
  if (!state) return headers // a key without limits: nothing to tell (and no loop)
  for (const kind of limitKinds) {
    const window = state[kind]
    if (!window) continue
    headers[`x-ratelimit-limit-${kind}`] = String(window.limit)
    headers[`x-ratelimit-remaining-${kind}`] = String(window.remaining)
    headers[`x-ratelimit-reset-${kind}`] = formatResetDuration(window.resetMs)
  }
  return headers
}

const limitKinds = ['requests', 'tokens'] as const

/** Go-style durations, the format OpenAI's reset headers use. */
export function formatResetDuration(ms: number): string {
  if (ms < 1000) return `${Math.ceil(ms)}ms`
  const hours = Math.floor(ms / 3_600_000)
  const minutes = Math.floor((ms % 3_600_000) / 60_000)
  const seconds = Number(((ms % 60_000) / 1000).toFixed(3))
  if (hours) return `${hours}h${minutes}m${seconds}s`
  if (minutes) return `${minutes}m${seconds}s`
  return `${seconds}s`
}
