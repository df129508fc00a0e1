import { describe, expect, test } from 'bun:test'
import { defaultRetryPolicy, isDelivered, nextAttemptAt } from './webhook-retry.ts'

const minute = 60_000
const hour = 60 * minute

/** Every attempt time of a receiver that never answers, the first at 0, with one random number throughout. */
function scheduleOf(random: number): number[] {
  const attempts = [0]
  for (let attempt = 1; ; attempt++) {
    const next = nextAttemptAt({ attempt, firstAttemptAt: 0, failedAt: attempts.at(-1)! }, random)
    if (next === undefined) return attempts
    attempts.push(next)
  }
}

describe('webhook retry schedule', () => {
  test('doubling from 10 s with jitter between half and all of the backoff', () => {
    expect(nextAttemptAt({ attempt: 1, firstAttemptAt: 0, failedAt: 0 }, 0)).toBe(5_000)
    expect(nextAttemptAt({ attempt: 1, firstAttemptAt: 0, failedAt: 0 }, 0.999_999)).toBe(10_000)
    expect(nextAttemptAt({ attempt: 2, firstAttemptAt: 0, failedAt: 1_000 }, 0.5)).toBe(1_000 + 15_000)
    expect(nextAttemptAt({ attempt: 4, firstAttemptAt: 0, failedAt: 0 }, 1)).toBe(80_000)
  })

  test('the delay stops growing at an hour', () => {
    expect(nextAttemptAt({ attempt: 20, firstAttemptAt: 0, failedAt: hour }, 1)).toBe(2 * hour)
    expect(nextAttemptAt({ attempt: 2000, firstAttemptAt: 0, failedAt: hour }, 1)).toBe(2 * hour)
  })

  test('gives up after a day, whatever the jitter, having kept trying until near its end', () => {
    for (const random of [0, 0.37, 0.999]) {
      const attempts = scheduleOf(random)
      expect(attempts.at(-1)!).toBeLessThanOrEqual(24 * hour)
      expect(attempts.at(-1)!).toBeGreaterThan(23 * hour)
      for (let index = 1; index < attempts.length; index++) expect(attempts[index]!).toBeGreaterThan(attempts[index - 1]!)
    }
    expect(scheduleOf(0.999).length).toBeGreaterThan(25)
    expect(scheduleOf(0).length).toBeLessThan(60)
  })

  test('Retry-After is honoured, up to the cap', () => {
    expect(nextAttemptAt({ attempt: 1, firstAttemptAt: 0, failedAt: 0, retryAfterMs: 120_000 }, 0)).toBe(120_000)
    expect(nextAttemptAt({ attempt: 1, firstAttemptAt: 0, failedAt: 0, retryAfterMs: 10 * hour }, 0)).toBe(hour)
    expect(nextAttemptAt({ attempt: 1, firstAttemptAt: 0, failedAt: 0, retryAfterMs: 1 }, 0)).toBe(5_000)
  })

  test('a custom policy for tests with a short day', () => {
    const policy = { ...defaultRetryPolicy, firstDelayMs: 100, maxDelayMs: 400, giveUpAfterMs: 1_000 }
    expect(nextAttemptAt({ attempt: 1, firstAttemptAt: 0, failedAt: 0 }, 1, policy)).toBe(100)
    expect(nextAttemptAt({ attempt: 5, firstAttemptAt: 0, failedAt: 500 }, 1, policy)).toBe(900)
    expect(nextAttemptAt({ attempt: 5, firstAttemptAt: 0, failedAt: 700 }, 1, policy)).toBeUndefined()
  })

  test('only a 2xx answer counts as delivered', () => {
    expect([200, 204, 299].map(isDelivered)).toEqual([true, true, true])
    expect([199, 301, 400, 410, 429, 500, 503].map(isDelivered)).toEqual([false, false, false, false, false, false, false])
  })
})
