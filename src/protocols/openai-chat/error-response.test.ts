import { expect, test } from 'bun:test'
import { GatewayError } from '../../core/errors.ts'
import { formatResetDuration, openAiErrorResponse } from './error-response.ts'

test('a rate-limit refusal carries retry-after and x-ratelimit-* headers', async () => {
  const error = new GatewayError('rate_limit', 'slow down', {
    code: 'rate_limit_exceeded',
    retryAfter: 2.2,
    rateLimit: { at: 0, requests: { limit: 10, remaining: 0, resetMs: 1500 }, tokens: { limit: 1000, remaining: 400, resetMs: 360_000 } },
  })
  const response = openAiErrorResponse(error, 'req_1')
  expect(response.status).toBe(429)
  expect(Object.fromEntries(response.headers)).toMatchObject({
    'retry-after': '3',
    'x-ratelimit-limit-requests': '10',
    'x-ratelimit-remaining-requests': '0',
    'x-ratelimit-reset-requests': '1.5s',
    'x-ratelimit-limit-tokens': '1000',
    'x-ratelimit-remaining-tokens': '400',
    'x-ratelimit-reset-tokens': '6m0s',
  })
  expect(((await response.json()) as { error: { type: string } }).error.type).toBe('rate_limit_error')
})

test("reset durations read like OpenAI's", () => {
  expect(formatResetDuration(20)).toBe('20ms')
  expect(formatResetDuration(8640)).toBe('8.64s')
  expect(formatResetDuration(3_723_000)).toBe('1h2m3s')
})
