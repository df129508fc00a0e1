import type { RateLimitState } from '../../core/errors.ts'

/**
 * `anthropic-ratelimit-{requests,tokens}-{limit,remaining,reset}` as Anthropic sends them: the reset is the RFC 3339
 * time at which the window is fully replenished. Merge both into a 429 (with `retry-after`) and, if wanted, into
 * successful responses (added to `headers`, a fresh object by default).
 */
export function encodeAnthropicRateLimitHeaders(
  state: RateLimitState | undefined,
  headers: Record<string, string> = {},
): Record<string, string> {
  if (!state) return headers
  for (const kind of ['requests', 'tokens'] as const) {
    const window = state[kind]
    if (!window) continue
    headers[`anthropic-ratelimit-${kind}-limit`] = String(window.limit)
    headers[`anthropic-ratelimit-${kind}-remaining`] = String(window.remaining)
    // Whole seconds, rounded up, as Anthropic's own headers are (`2026-01-31T12:00:05Z`).
    headers[`anthropic-ratelimit-${kind}-reset`] = new Date(Math.ceil((state.at + window.resetMs) / 1000) * 1000)
      .toISOString()
      .replace('.000Z', 'Z')
  }
  return headers
}
