import { afterAll, beforeAll, expect, test } from 'bun:test'
import { silentLogger } from '../src/core/logger.ts'
import { GatewayError } from '../src/core/errors.ts'
import { RedisLimiter } from '../src/db/redis/limiter.ts'
import { RedisLink } from '../src/db/redis/link.ts'
import type { LimitedKey } from '../src/domain/limits.ts'
import { startTestRedis, type TestRedis } from './support/redis.ts'

// Shared key limits against a real redis-server of this test's own: what happens to slots when an instance dies.
let redis: TestRedis
const links: RedisLink[] = []

beforeAll(async () => {
  redis = await startTestRedis()
})

afterAll(async () => {
  for (const link of links) link.close()
  await redis.stop()
})

/** An instance's limiter, with a short lease so that expiry is seen within the test. */
async function instance(leaseMs: number): Promise<RedisLimiter> {
  const link = new RedisLink(redis.url, silentLogger)
  links.push(link)
  const limiter = new RedisLimiter(link, undefined, leaseMs)
  await link.start()
  return limiter
}

const refused = (promise: Promise<unknown>) =>
  promise.then(
    () => false,
    (error: unknown) => error instanceof GatewayError && error.status === 429,
  )

test('a slot held by a live instance stays held past its lease (renewed); one held by a dead instance is reclaimed at expiry', async () => {
  const key: LimitedKey = { id: `key_${crypto.randomUUID()}`, rpm: null, tpm: null, concurrency: 1 }
  const [alive, dying, other] = await Promise.all([instance(300), instance(300), instance(300)])
  const held = await alive.admitLater(key, 0)
  await Bun.sleep(700) // more than two leases: only renewal keeps the slot
  expect(await refused(other.admitLater(key, 0))).toBe(true)
  held.release(0)
  await Bun.sleep(20)

  await dying.admitLater(key, 0)
  dying.stop() // its instance dies: no release, no renewal
  expect(await refused(other.admitLater(key, 0))).toBe(true)
  await Bun.sleep(400)
  const reclaimed = await other.admitLater(key, 0)
  reclaimed.release(0)
  for (const limiter of [alive, other]) limiter.stop()
})

test('tokens per minute: reservations and real usage count across instances, and a reclaimed reservation is given back', async () => {
  const key: LimitedKey = { id: `key_${crypto.randomUUID()}`, rpm: null, tpm: 100, concurrency: null }
  const [one, two] = await Promise.all([instance(300), instance(300)])
  const first = await one.admitLater(key, 60)
  expect(first.state?.tokens?.remaining).toBe(40)
  expect(await refused(two.admitLater(key, 50))).toBe(true) // 60 reserved + 50 > 100
  first.release(30) // it really used 30: 70 left in the minute
  await Bun.sleep(20)
  const second = await two.admitLater(key, 50)
  expect(second.state?.tokens?.remaining).toBe(20)
  two.stop() // dies holding its reservation of 50
  await Bun.sleep(400)
  const third = await one.admitLater(key, 60)
  expect(third.state?.tokens?.remaining).toBe(10)
  one.stop()
})

test('a Redis that stops answering (but keeps the connection) costs a request at most a stall: it goes on with local limits', async () => {
  const key: LimitedKey = { id: `key_${crypto.randomUUID()}`, rpm: 5, tpm: null, concurrency: null }
  const limiter = await instance(30_000)
  await limiter.admitLater(key, 0)
  redis.pause()
  try {
    const started = performance.now()
    const permit = await limiter.admitLater(key, 0)
    expect(performance.now() - started).toBeLessThan(1000)
    expect(permit.state?.requests?.remaining).toBe(4) // counted in memory: the local window saw only this one
    expect(links.at(-1)!.up).toBe(false)
    expect(limiter.admitNow(key, 0)).toBeDefined() // and the next ones do not even try Redis
  } finally {
    redis.resume()
    limiter.stop()
  }
  const deadline = performance.now() + 5000
  while (!links.at(-1)!.up && performance.now() < deadline) await Bun.sleep(20)
  expect(links.at(-1)!.up).toBe(true)
})
