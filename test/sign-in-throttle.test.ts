import { afterAll, beforeAll, expect, test } from 'bun:test'
import { RedisClient } from 'bun'
import { addLogin, postSignIn } from './support/console.ts'
import { mockConfig, startTestGateway, type TestGateway } from './support/gateway.ts'
import { startTestRedis, type TestRedis } from './support/redis.ts'

// ISSUE 15 item 7: the console's sign-in throttle can be neither bypassed by a forged header nor turned against the admin.
let direct: TestGateway
let proxied: TestGateway
let shared: TestGateway
let redis: TestRedis

beforeAll(async () => {
  direct = await startTestGateway()
  // Behind a proxy on loopback: the tests' own connections come from it, so their X-Forwarded-For is believed.
  proxied = await startTestGateway({ config: { ...mockConfig, trusted_proxies: ['127.0.0.0/8', '::1'] } })
  redis = await startTestRedis()
  shared = await startTestGateway({ config: { ...mockConfig, redis: redis.url, trusted_proxies: ['127.0.0.0/8', '::1'] } })
})

afterAll(async () => {
  await direct.stop()
  await proxied.stop()
  await shared.stop()
  await redis.stop()
})

const from = (address: string) => ({ 'x-forwarded-for': address })

test('X-Forwarded-For from a peer that is not a trusted proxy is ignored: rotating it gives a spray no fresh allowance', async () => {
  for (let attempt = 0; attempt < 20; attempt++) {
    expect((await postSignIn(direct.url, `sprayed-${attempt}`, 'guess', from(`198.18.0.${attempt}`))).status).toBe(401)
  }
  expect((await postSignIn(direct.url, 'sprayed-new', 'guess', from('198.18.1.1'))).status).toBe(429)
})

test("five wrong passwords from elsewhere do not keep the admin out: the right one from the admin's address gets in", async () => {
  const password = await addLogin(proxied.gateway.services.store, 'locked-admin', 'admin')
  for (let attempt = 0; attempt < 8; attempt++) {
    expect((await postSignIn(proxied.url, 'locked-admin', `guess-${attempt}`, from(`203.0.113.${attempt}`))).status).toBe(401)
  }
  // A guessing address is slowed on that name (the per-name backoff), even with the right password…
  expect((await postSignIn(proxied.url, 'locked-admin', password, from('203.0.113.0'))).status).toBe(429)
  // …while the admin, signing in from their own address, is let in.
  expect((await postSignIn(proxied.url, 'locked-admin', password, from('198.51.100.7'))).status).toBe(200)
})

test('behind a trusted proxy the client is the last hop the proxies did not add', async () => {
  for (let attempt = 0; attempt < 20; attempt++) {
    // The client forged the first hop; the proxy appended the address it really saw.
    expect((await postSignIn(proxied.url, `hop-${attempt}`, 'guess', from(`10.9.9.${attempt}, 192.0.2.44`))).status).toBe(401)
  }
  expect((await postSignIn(proxied.url, 'hop-new', 'guess', from('10.9.9.250, 192.0.2.44'))).status).toBe(429)
  expect((await postSignIn(proxied.url, 'hop-new', 'guess', from('192.0.2.45'))).status).toBe(401)
})

// ISSUE 22: twenty sign-ins with 8 MiB names once made the throttle keep 400 MB, in memory and in Redis.
test('a username over 256 bytes is a 400 naming the field, and is never counted', async () => {
  for (let attempt = 0; attempt < 25; attempt++) {
    const response = await postSignIn(proxied.url, `${'n'.repeat(300 * 1024)}-${attempt}`, 'guess', from('192.0.2.200'))
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({ error: { code: 'invalid_request', field: 'username' } })
  }
  // Twenty-five refusals counted would have locked the address out (twenty failures): it was not.
  expect((await postSignIn(proxied.url, 'after-long-names', 'guess', from('192.0.2.200'))).status).toBe(401)
})

test('with Redis, the throttle keeps hashes: a 256-byte name and a long forwarded address make keys of a few dozen bytes', async () => {
  const longName = 'n'.repeat(256)
  const longAddress = `2001:db8::${'1:'.repeat(60)}1`
  for (let attempt = 0; attempt < 3; attempt++)
    expect((await postSignIn(shared.url, longName, 'guess', from(longAddress))).status).toBe(401)
  const client = new RedisClient(redis.url)
  const keys = (await client.send('KEYS', ['tollgate:sign-in:*'])) as string[]
  client.close()
  expect(keys.length).toBe(3) // the name with the address, the address, the name
  for (const key of keys) expect(key.length).toBeLessThan(80)
})
