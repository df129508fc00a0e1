import { describe, expect, test } from 'bun:test'
import { GatewayError } from '../core/errors.ts'
import { KeyLimiter, type LimitedKey } from './limits.ts'

const key = (limits: Partial<LimitedKey>): LimitedKey => ({ id: 'key_1', rpm: null, tpm: null, concurrency: null, ...limits })

function refusal(action: () => unknown): GatewayError {
  try {
    action()
  } catch (error) {
    if (error instanceof GatewayError) return error
    throw error
  }
  throw new Error('expected a refusal')
}

describe('KeyLimiter', () => {
  test('requests per minute: the limit is admitted, the next is refused until the oldest leaves the window', () => {
    let now = 1_000_000
    const limiter = new KeyLimiter(() => now)
    const limited = key({ rpm: 3 })
    for (let index = 0; index < 3; index++) {
      limiter.admit(limited, 1).release(1)
      now += 10_000
    }
    const error = refusal(() => limiter.admit(limited, 1))
    expect(error.status).toBe(429)
    expect(error.code).toBe('rate_limit_exceeded')
    // The first request was at 1 000 000; now is 1 030 000: it leaves the window in 30 s.
    expect(error.retryAfter).toBe(30)
    // Fully replenished when the newest (at 1 020 000) leaves: 50 s.
    expect(error.rateLimit?.requests).toEqual({ limit: 3, remaining: 0, resetMs: 50_000 })
    now += 30_000
    expect(() => limiter.admit(limited, 1)).not.toThrow()
  })

  test('concurrency: a slot frees when a request ends', () => {
    const limiter = new KeyLimiter()
    const limited = key({ concurrency: 2 })
    const first = limiter.admit(limited, 1)
    limiter.admit(limited, 1)
    expect(refusal(() => limiter.admit(limited, 1)).code).toBe('concurrency_limit_exceeded')
    first.release(10)
    first.release(10) // idempotent: a double release must not free a second slot
    limiter.admit(limited, 1)
    expect(refusal(() => limiter.admit(limited, 1)).status).toBe(429)
  })

  test('tokens per minute: reservations count while running, real usage after', () => {
    let now = 0
    const limiter = new KeyLimiter(() => now)
    const limited = key({ tpm: 1000 })
    const running = limiter.admit(limited, 600)
    const error = refusal(() => limiter.admit(limited, 500))
    expect(error.rateLimit?.tokens).toMatchObject({ limit: 1000, remaining: 400 })
    running.release(200) // it used far less than the estimate
    now += 5_000
    const state = limiter.admit(limited, 500).state
    expect(state?.tokens?.remaining).toBe(300)
    expect(refusal(() => limiter.admit(limited, 5000)).message).toContain('larger than')
  })

  test('a cancelled admission leaves no trace', () => {
    const limiter = new KeyLimiter()
    const limited = key({ rpm: 1, concurrency: 1 })
    limiter.admit(limited, 1).cancel()
    expect(() => limiter.admit(limited, 1)).not.toThrow()
  })

  test('keys without limits are not tracked at all', () => {
    const limiter = new KeyLimiter()
    const permit = limiter.admit(key({}), 1)
    expect(permit.state).toBeUndefined()
  })
})
