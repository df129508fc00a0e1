import { afterAll, beforeAll, expect, test } from 'bun:test'
import { addLogin, postSignIn } from './support/console.ts'
import { mockConfig, startTestGateway, type TestGateway } from './support/gateway.ts'

// ISSUE 15 item 7: the console's sign-in throttle can be neither bypassed by a forged header nor turned against the admin.
let direct: TestGateway
let proxied: TestGateway

beforeAll(async () => {
  direct = await startTestGateway()
  // Behind a proxy on loopback: the tests' own connections come from it, so their X-Forwarded-For is believed.
  proxied = await startTestGateway({ config: { ...mockConfig, trusted_proxies: ['127.0.0.0/8', '::1'] } })
})

afterAll(async () => {
  await direct.stop()
  await proxied.stop()
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
