import { describe, expect, test } from 'bun:test'
import { CircuitBreaker } from './circuit-breaker.ts'
import { silentLogger } from '../core/logger.ts'

function breaker() {
  const clock = { now: 0 }
  const instance = new CircuitBreaker(
    { windowMs: 10_000, minRequests: 4, failureRatio: 0.5, cooldownMs: 1_000 },
    silentLogger,
    () => clock.now,
  )
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

  test("shared state: its own opens and closes are told; another instance's are adopted without being told back", () => {
    const { instance: here, clock } = breaker()
    const { instance: there } = breaker()
    const told: unknown[] = []
    here.onChange = (change) => told.push(change)
    there.onChange = (change) => told.push(change)
    for (let index = 0; index < 4; index++) here.acquire('a')!.failed('HTTP 503')
    expect(told).toEqual([{ route: 'a', state: 'open', until: 1_000, reason: '4 of the last 4 attempts failed (HTTP 503)' }])
    there.adopt(told[0] as never)
    expect(there.acquire('a')).toBeUndefined() // skipped there too, without a single attempt of its own
    expect(there.snapshot()[0]).toMatchObject({ state: 'open', openUntil: 1_000, trips: 1 })
    there.adopt({ route: 'a', state: 'open', until: 500, reason: 'older news' })
    expect(there.snapshot()[0]!.openUntil).toBe(1_000) // a shorter open does not cut a longer one
    clock.now = 1_000
    here.acquire('a')!.succeeded()
    expect(told.at(-1)).toEqual({ route: 'a', state: 'closed' })
    there.adopt(told.at(-1) as never)
    expect(there.snapshot()[0]!.state).toBe('closed')
    expect(told.length).toBe(2)
  })
})
