import { afterAll, beforeAll, expect, test } from 'bun:test'
import OpenAI from 'openai'
import { createAdminToken } from '../src/domain/admin-tokens.ts'
import type { Gateway } from '../src/gateway.ts'
import { addLogin, postSignIn, signIn } from './support/console.ts'
import { mockConfig, type TestGateway } from './support/gateway.ts'
import type { TestRedis } from './support/redis.ts'
import { startTwoInstances, type TwoInstances } from './support/two-instances.ts'

// Two gateway instances on one PostgreSQL and one Redis (a redis-server of this test's own, so it can be killed):
// what "scaling out" means for limits, revocations, the sign-in throttle and route health.
const config = {
  providers: [
    ...mockConfig.providers,
    { name: 'slow', type: 'mock', chunk_delay_ms: 60 },
    // Nothing listens on port 9: every attempt fails at connect.
    { name: 'dead', type: 'openai', base_url: 'http://127.0.0.1:9', api_key: 'sk-none', timeouts: { connect_ms: 500 } },
  ],
  models: [
    ...mockConfig.models,
    { id: 'slow', provider: 'slow', price: { input: 1, output: 2 } },
    { id: 'dead', provider: 'dead', price: { input: 1, output: 2 } },
  ],
  routing: { min_requests: 1, max_attempts: 1, cooldown_s: 60 },
}

let instances: TwoInstances
let redis: TestRedis
let first: TestGateway
let second: Gateway

beforeAll(async () => {
  instances = await startTwoInstances(config)
  ;({ first, second, redis } = instances)
})

afterAll(() => instances?.stop())

const urls = () => [first.url, second.url]

function chat(url: string, secret: string, model = 'mock-1'): Promise<Response> {
  return fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hello' }] }),
  })
}

/** A streamed answer read to its end: with the slow provider it takes a few hundred milliseconds. */
async function slowChat(url: string, secret: string): Promise<number> {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'slow', stream: true, messages: [{ role: 'user', content: 'one two three four' }] }),
  })
  await response.text()
  return response.status
}

/** `count` requests alternated across both instances, one after the other; their statuses in order. */
async function alternate(secret: string, count: number): Promise<number[]> {
  const statuses: number[] = []
  for (let index = 0; index < count; index++) {
    const response = await chat(urls()[index % 2]!, secret)
    await response.text()
    statuses.push(response.status)
  }
  return statuses
}

test('rpm: 10 is ten requests a minute for the key, not ten per instance; the 429s say so in their headers', async () => {
  const { secret } = await first.createKey({ rpm: 10 })
  const refusals: Response[] = []
  let okCount = 0
  for (let index = 0; index < 20; index++) {
    const response = await chat(urls()[index % 2]!, secret)
    if (response.status === 200) okCount++
    else refusals.push(response)
    await response.text()
  }
  expect(okCount).toBe(10)
  expect(refusals.map((response) => response.status)).toEqual(Array(10).fill(429))
  const last = refusals.at(-1)!
  expect(last.headers.get('x-ratelimit-limit-requests')).toBe('10')
  expect(last.headers.get('x-ratelimit-remaining-requests')).toBe('0')
  expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(50) // the first request leaves the minute in ~60 s
})

test('concurrency: 2 holds across both instances, and the slots come back when the requests end', async () => {
  const { secret } = await first.createKey({ concurrency: 2 })
  const statuses = await Promise.all(Array.from({ length: 6 }, (_, index) => slowChat(urls()[index % 2]!, secret)))
  expect(statuses.filter((status) => status === 200).length).toBe(2)
  expect(statuses.filter((status) => status === 429).length).toBe(4)
  expect(await Promise.all([slowChat(first.url, secret), slowChat(second.url, secret)])).toEqual([200, 200])
})

test('a key revoked on one instance is refused by the other within 100 ms, without waiting for its poll', async () => {
  const { secret, record } = await first.createKey()
  const onSecond = new OpenAI({ baseURL: `${second.url}/v1`, apiKey: secret, maxRetries: 0 })
  await onSecond.models.list()
  second.services.keys.stop() // no polling: only the announcement can tell the second instance
  const admin = await signIn(first.url, 'scale-admin', await addLogin(first.gateway.services.store, 'scale-admin', 'admin'))
  const revoked = await admin.send('POST', `/console/api/keys/${record.id}/revoke`)
  expect(revoked.status).toBe(200)
  const revokedAt = performance.now()
  let refusedAfter: number | undefined
  while (performance.now() - revokedAt < 1000) {
    if ((await onSecond.models.list().catch((error: unknown) => error)) instanceof OpenAI.AuthenticationError) {
      refusedAfter = performance.now() - revokedAt
      break
    }
    await Bun.sleep(5)
  }
  await second.services.keys.start()
  expect(refusedAfter).toBeLessThan(100)
})

test('a key rotated through the admin API on one instance: the other refuses the old secret and takes the new one, without its poll', async () => {
  const { secret, record } = await first.createKey()
  expect((await chat(second.url, secret)).status).toBe(200)
  second.services.keys.stop() // no polling: only the announcement can tell the second instance
  const token = (await createAdminToken(first.gateway.services.store.adminTokens, 'rotator', 'full')).secret
  const rotated = await fetch(`${first.url}/admin/api/keys/${record.id}/rotate`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
  })
  expect(rotated.status).toBe(200)
  const { secret: fresh } = (await rotated.json()) as { secret: string }
  const rotatedAt = performance.now()
  let refusedAfter: number | undefined
  while (performance.now() - rotatedAt < 1000) {
    if ((await chat(second.url, secret)).status === 401) {
      refusedAfter = performance.now() - rotatedAt
      break
    }
    await Bun.sleep(5)
  }
  expect((await chat(second.url, fresh)).status).toBe(200)
  await second.services.keys.start()
  expect(refusedAfter).toBeLessThan(100)
})

test('the sign-in throttle is one for both instances: five failures spread over them lock the name for that address', async () => {
  const password = await addLogin(first.gateway.services.store, 'shared-throttle', 'admin')
  for (let attempt = 0; attempt < 5; attempt++) {
    expect((await postSignIn(urls()[attempt % 2]!, 'shared-throttle', 'wrong')).status).toBe(401)
  }
  for (const url of urls()) expect((await postSignIn(url, 'shared-throttle', password)).status).toBe(429)
})

test('one instance finding an upstream down takes the route out of rotation on the other too', async () => {
  const { secret } = await first.createKey()
  expect((await chat(first.url, secret, 'dead')).status).toBeGreaterThanOrEqual(500)
  const routeState = async () => {
    const status = (await (await fetch(`${second.url}/status`)).json()) as { routes: { route: string; state: string }[] }
    return status.routes.find((route) => route.route.startsWith('dead'))?.state
  }
  const deadline = performance.now() + 1000
  while (performance.now() < deadline && (await routeState()) !== 'open') await Bun.sleep(10)
  expect(await routeState()).toBe('open')
})

test('Redis killed mid-run: every request still succeeds under per-instance limits; Redis back: shared limits resume', async () => {
  const { secret } = await first.createKey({ rpm: 1000, concurrency: 4 })
  const status = async (url: string) =>
    ((await (await fetch(`${url}/status`)).json()) as { shared_state: { mode: string } }).shared_state.mode
  expect(await status(first.url)).toBe('redis')

  // Requests in a steady stream over both instances while Redis dies under them.
  const statuses: Promise<number>[] = []
  for (let index = 0; index < 40; index++) {
    if (index === 15) await redis.kill()
    statuses.push(chat(urls()[index % 2]!, secret).then(async (response) => (await response.text(), response.status)))
    await Bun.sleep(5)
  }
  expect(await Promise.all(statuses)).toEqual(Array(40).fill(200))
  expect(await status(first.url)).toBe('local-fallback')
  expect(await (await fetch(`${second.url}/metrics`)).text()).toContain('tollgate_redis_up 0')

  // Each instance counts alone now: an rpm: 3 key gets three requests on each.
  const alone = await first.createKey({ rpm: 3 })
  expect((await alternate(alone.secret, 10)).filter((code) => code === 200).length).toBe(6)

  await redis.restart()
  const deadline = performance.now() + 10_000
  while (performance.now() < deadline && ((await status(first.url)) !== 'redis' || (await status(second.url)) !== 'redis'))
    await Bun.sleep(50)
  expect([await status(first.url), await status(second.url)]).toEqual(['redis', 'redis'])
  expect(await (await fetch(`${second.url}/metrics`)).text()).toContain('tollgate_redis_up 1')
  const together = await first.createKey({ rpm: 3 })
  expect((await alternate(together.secret, 8)).filter((code) => code === 200).length).toBe(3)
}, 30_000)
