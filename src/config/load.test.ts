import { expect, test } from 'bun:test'
import { parseConfig } from './load.ts'

const base = { providers: [{ name: 'mock', type: 'mock' }], models: [{ id: 'm', provider: 'mock', price: { input: 1, output: 2 } }] }

test('routing: defaults, and every knob read from the file', () => {
  expect(parseConfig(base).routing).toEqual({
    maxAttempts: 3, cooldownS: 30, windowS: 60, minRequests: 5, failureRatio: 0.5, backoffMs: 100, backoffMaxMs: 2000, maxRetryAfterS: 10,
  })
  const routing = { max_attempts: 5, cooldown_s: 0.5, window_s: 10, min_requests: 2, failure_ratio: 1, backoff_ms: 0, backoff_max_ms: 50, max_retry_after_s: 0 }
  expect(parseConfig({ ...base, routing }).routing).toEqual({
    maxAttempts: 5, cooldownS: 0.5, windowS: 10, minRequests: 2, failureRatio: 1, backoffMs: 0, backoffMaxMs: 50, maxRetryAfterS: 0,
  })
})

test('routing: a bad or misspelt knob fails at start, naming the field', () => {
  expect(() => parseConfig({ ...base, routing: { failure_ratio: 0 } })).toThrow('routing.failure_ratio: must be above 0 and at most 1')
  expect(() => parseConfig({ ...base, routing: { max_attempts: 0 } })).toThrow('routing.max_attempts')
  expect(() => parseConfig({ ...base, routing: { cooldown: 5 } })).toThrow('routing.cooldown: unknown setting')
})
