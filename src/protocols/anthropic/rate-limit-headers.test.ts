import { expect, test } from 'bun:test'
import { encodeAnthropicRateLimitHeaders } from './rate-limit-headers.ts'

test('renders the neutral rate-limit state as anthropic-ratelimit-* with RFC 3339 resets', () => {
  const at = Date.parse('2026-01-31T12:00:00.250Z')
  const headers = encodeAnthropicRateLimitHeaders({
    at,
    requests: { limit: 50, remaining: 0, resetMs: 4_000 },
    tokens: { limit: 1000, remaining: 250, resetMs: 60_000 },
  })
  expect(headers).toEqual({
    'anthropic-ratelimit-requests-limit': '50',
    'anthropic-ratelimit-requests-remaining': '0',
    'anthropic-ratelimit-requests-reset': '2026-01-31T12:00:05Z',
    'anthropic-ratelimit-tokens-limit': '1000',
    'anthropic-ratelimit-tokens-remaining': '250',
    'anthropic-ratelimit-tokens-reset': '2026-01-31T12:01:01Z',
  })
  expect(encodeAnthropicRateLimitHeaders(undefined)).toEqual({})
})
