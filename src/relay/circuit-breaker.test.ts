import { describe, expect, test } from 'bun:test'
import { CircuitBreaker } from './circuit-breaker.ts'
import { silentLogger } from '../core/logger.ts'

function breaker() {
  const clock = { now: 0 }
  const instance = new CircuitBreaker({ windowMs: 10_000, minRequests: 4, failureRatio: 0.5, cooldownMs: 1_000 }, silentLogger, () => clock.now)
  return { instance, clock }
}

describe('CircuitBreaker', () => {
  test('opens when the failure share reaches the threshold, not before the minimum of outcomes', () => {
    const { instance } = breaker()
    instance.acquire('a')!.failed('HTTP 500')
    instance.acquire('a')!.failed('HTTP 500')
    instance.acquire('a')!.succeeded()
    expect(instance.snapshot()[0]).toMatchObject({ state: 'closed', requests: 3, failures: 2 })
    instance.acquire('a')!.failed('HTTP 500')
    expect(instance.snapshot()[0]).toMatchObject({ state: 'open', trips: 1, lastFailure: 'HTTP 500' })
    expect(instance.acquire('a')).toBeUndefined()
    expect(instance.waitFor('a')).toBe(1_000)
  })

  test('after the cooldown exactly one probe goes; its success closes the route', () => {
    const { instance, clock } = breaker()
    for (let index = 0; index < 4; index++) instance.acquire('a')!.failed('timeout')
    clock.now += 1_000
    const probe = instance.acquire('a')
    expect(probe).toBeDefined()
    expect(instance.snapshot()[0]!.state).toBe('half-open')
    expect(instance.acquire('a')).toBeUndefined() // a second request may not probe at the same time
    probe!.succeeded()
    expect(instance.snapshot()[0]!.state).toBe('closed')
    expect(instance.acquire('a')).toBeDefined()
  })

  test('a failed probe opens the route for another cooldown; a released probe lets the next request probe', () => {
    const { instance, clock } = breaker()
    for (let index = 0; index < 4; index++) instance.acquire('a')!.failed('timeout')
    clock.now += 1_000
    instance.acquire('a')!.released()
    const probe = instance.acquire('a')!
    probe.failed('HTTP 502')
    probe.succeeded() // a ticket reports once: this is ignored
    expect(instance.snapshot()[0]).toMatchObject({ state: 'open', trips: 2, openUntil: 2_000 })
  })

  test('old outcomes leave the window; retry-after pauses a route no longer than the cooldown', () => {
    const { instance, clock } = breaker()
    for (let index = 0; index < 3; index++) instance.acquire('a')!.failed('HTTP 500')
    clock.now += 10_001
    instance.acquire('a')!.failed('HTTP 500')
    expect(instance.snapshot()[0]).toMatchObject({ state: 'closed', requests: 1 })
    instance.acquire('a')!.failed('HTTP 429', 60_000)
    expect(instance.snapshot()[0]!.state).toBe('open')
    expect(instance.waitFor('a')).toBe(1_000)
    expect(instance.waitFor('never-seen')).toBe(0)
  })
})
