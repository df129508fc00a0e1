import { afterAll, beforeAll, expect, test } from 'bun:test'
import { RedisClient } from 'bun'
import type { Logger } from '../src/core/logger.ts'
import { mockConfig, startTestGateway, type TestGateway } from './support/gateway.ts'
import { startTestRedis, type TestRedis } from './support/redis.ts'

/**
 * ISSUE 22: a route change read from Redis (pub/sub, or the hash of open routes read at start) was trusted as sent:
 * an `until` in the year 2286 kept a route out of rotation for centuries, and an unknown route name was adopted (and
 * kept in memory). Anyone who can write to Redis can send one, so each is checked: `until` is bounded by this
 * instance's own cooldown, unknown routes and malformed messages are ignored.
 */
const cooldownMs = 1000
const year2286 = 9_999_999_999_999
const logs: { level: string; message: string }[] = []
const logger: Logger = {
  info: (_, message) => logs.push({ level: 'info', message }),
  warn: (_, message) => logs.push({ level: 'warn', message }),
  error: (_, message) => logs.push({ level: 'error', message }),
}
let redis: TestRedis
let client: RedisClient
let gateway: TestGateway
const config = () => ({ ...mockConfig, redis: redis.url, routing: { cooldown_s: cooldownMs / 1000 } })

beforeAll(async () => {
  redis = await startTestRedis()
  client = new RedisClient(redis.url)
  gateway = await startTestGateway({ logger, config: config() })
})

afterAll(async () => {
  await gateway.stop()
  client.close()
  await redis.stop()
})

type RouteStatus = { route: string; state: string; open_until: string | null }
async function routes(on: TestGateway): Promise<RouteStatus[]> {
  return ((await (await fetch(`${on.url}/status`)).json()) as { routes: RouteStatus[] }).routes
}
const publish = (payload: unknown) =>
  client.send('PUBLISH', ['tollgate:routes', typeof payload === 'string' ? payload : JSON.stringify({ origin: 'elsewhere', payload })])
/** Pub/sub is asynchronous: give the gateway a moment to hear what was published. */
const heard = () => Bun.sleep(100)

test("an open until the year 2286 is kept no longer than this instance's cooldown", async () => {
  const [route] = await routes(gateway)
  await publish({ route: route!.route, state: 'open', until: year2286, reason: 'forever' })
  await heard()
  const open = (await routes(gateway)).find((one) => one.route === route!.route)!
  expect(open.state).toBe('open')
  expect(Date.parse(open.open_until!)).toBeLessThanOrEqual(Date.now() + cooldownMs)
  await Bun.sleep(cooldownMs + 100)
  const answer = await fetch(`${gateway.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gateway.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      model: route!.route.endsWith('mock-fast') ? 'mock-fast' : 'mock-1',
      messages: [{ role: 'user', content: 'hi' }],
    }),
  })
  expect(answer.status).toBe(200)
})

test('a route this instance does not have is not adopted; malformed messages are ignored without a stack', async () => {
  const before = (await routes(gateway)).map((one) => one.route).sort()
  await publish({ route: 'made-up/route', state: 'open', until: Date.now() + 500, reason: 'invented' })
  for (const payload of [
    null,
    42,
    { route: 5, state: 'open', until: 1 },
    { route: before[0], state: 'open', until: 'soon' },
    { route: before[0], state: 'gone' },
  ]) {
    await publish(payload)
  }
  await publish('not json at all')
  await heard()
  expect((await routes(gateway)).map((one) => one.route).sort()).toEqual(before)
  expect(logs.filter((line) => line.level === 'error')).toEqual([])
  expect(logs.filter((line) => line.message === 'ignored a malformed route change from another instance').length).toBe(5)
})

test('the open routes an instance reads from Redis at start are bounded the same way', async () => {
  const route = (await routes(gateway))[0]!.route
  await client.send('HSET', [
    'tollgate:routes:open',
    route,
    JSON.stringify({ until: year2286, reason: 'forever' }),
    'made-up/route',
    JSON.stringify({ until: year2286, reason: 'x' }),
  ])
  await client.send('PEXPIRE', ['tollgate:routes:open', '60000'])
  const late = await startTestGateway({ config: config() })
  try {
    const seen = await routes(late)
    expect(seen.map((one) => one.route)).not.toContain('made-up/route')
    const open = seen.find((one) => one.route === route)!
    expect(open.state).toBe('open')
    expect(Date.parse(open.open_until!)).toBeLessThanOrEqual(Date.now() + cooldownMs)
  } finally {
    await late.stop()
  }
})
