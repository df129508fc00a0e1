import { afterAll, beforeAll, expect, test } from 'bun:test'
import { RedisClient } from 'bun'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import OpenAI from 'openai'
import type { Logger } from '../src/core/logger.ts'
import { addLogin, postSignIn, signIn } from './support/console.ts'
import { startFaultyUpstream } from './support/faulty-upstream.ts'
import { startTestGateway, type TestGateway } from './support/gateway.ts'
import { startTestRedis, type TestRedis } from './support/redis.ts'

/**
 * docs/operations.md gives production a Redis user that may touch only Tollgate's keys and channels, with only the
 * commands Tollgate sends. That very line is applied here, and the gateway runs every path that uses Redis under it:
 * limits (admission and release scripts), the sign-in throttle and an unlock, a key announcement, a route opening and
 * its shared probe. Redis's own ACL log must stay empty.
 */
const password = `acl-${crypto.randomUUID()}`
const aclLine = /^ACL SETUSER tollgate .*$/m.exec(readFileSync(join(import.meta.dir, '..', 'docs', 'operations.md'), 'utf8'))![0]
const warnings: string[] = []
const logger: Logger = { info() {}, warn: (_, message) => warnings.push(message), error: (_, message) => warnings.push(message) }
const failing = startFaultyUpstream({ kind: 'status', status: 500 })
let redis: TestRedis
let admin: RedisClient
let gateway: TestGateway

beforeAll(async () => {
  redis = await startTestRedis()
  admin = new RedisClient(redis.url)
  await admin.send('ACL', aclLine.replace('CHANGE-ME-LONG-RANDOM', password).split(' ').slice(1))
  gateway = await startTestGateway({
    logger,
    config: {
      redis: `redis://tollgate:${password}@127.0.0.1:${redis.port}/0`,
      routing: { max_attempts: 1, min_requests: 1, failure_ratio: 0.5, cooldown_s: 0.2 },
      providers: [
        { name: 'mock', type: 'mock' },
        { name: 'down', type: 'openai', base_url: `${failing.url}/v1` },
      ],
      models: [
        { id: 'mock-1', provider: 'mock', price: { input: 1, output: 2 } },
        { id: 'down', provider: 'down', price: { input: 1, output: 2 } },
      ],
    },
  })
})

afterAll(async () => {
  await gateway.stop()
  admin.close()
  await redis.stop()
  failing.stop()
})

test("every path that uses Redis works under the documented ACL user; Redis's ACL log stays empty", async () => {
  expect(gateway.gateway.services.shared!.up).toBe(true)
  const { secret, record } = await gateway.createKey({ rpm: 100, tpm: 100_000, concurrency: 2 })
  const client = new OpenAI({ baseURL: gateway.baseUrl, apiKey: secret, maxRetries: 0 })
  const answer = await client.chat.completions.create({ model: 'mock-1', messages: [{ role: 'user', content: 'hi' }] })
  expect(answer.choices[0]!.message.content).toBeTruthy()
  // A route opened (recorded in the hash, announced), then probed after its cooldown (a shared probe slot).
  for (let attempt = 0; attempt < 2; attempt++)
    await client.chat.completions.create({ model: 'down', messages: [{ role: 'user', content: 'hi' }] }).catch(() => {})
  await Bun.sleep(50)
  expect(Number(await admin.send('HLEN', ['tollgate:routes:open']))).toBe(1)
  await Bun.sleep(250)
  const probesBefore = failing.requests.length
  await client.chat.completions.create({ model: 'down', messages: [{ role: 'user', content: 'hi' }] }).catch(() => {})
  expect(failing.requests.length).toBe(probesBefore + 1)
  // The sign-in throttle: failures counted in Redis, then an admin's unlock (SCAN and DEL).
  const store = gateway.gateway.services.store
  await addLogin(store, 'acl-user', 'admin')
  expect((await postSignIn(gateway.url, 'acl-user', 'wrong')).status).toBe(401)
  expect(((await admin.send('KEYS', ['tollgate:sign-in:*'])) as string[]).length).toBe(3)
  const console = await signIn(gateway.url, 'acl-admin', await addLogin(store, 'acl-admin', 'admin'))
  const users = (await (await console.get('/console/api/users')).json()) as { id: string; name: string }[]
  const unlocked = await console.send('POST', `/console/api/users/${users.find((user) => user.name === 'acl-user')!.id}/unlock`)
  expect(unlocked.status).toBe(200)
  // A key change, announced to the other instances.
  expect((await console.send('POST', `/console/api/keys/${record.id}/revoke`)).status).toBe(200)
  await Bun.sleep(100)
  expect(await admin.send('ACL', ['LOG'])).toEqual([])
  expect(warnings.filter((message) => message.startsWith('redis'))).toEqual([])
  expect(gateway.gateway.services.shared!.up).toBe(true)
})
