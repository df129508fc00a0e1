import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import OpenAI from 'openai'
import { hashSessionToken } from '../src/domain/sessions.ts'
import { addLogin, postSignIn, signIn, type ConsoleClient } from './support/console.ts'
import { startTestGateway, type TestGateway } from './support/gateway.ts'

let gateway: TestGateway
let adminPassword: string
let admin: ConsoleClient

beforeAll(async () => {
  gateway = await startTestGateway()
  adminPassword = await addLogin(gateway.gateway.services.store, 'root', 'admin')
  admin = await signIn(gateway.url, 'root', adminPassword)
})

afterAll(() => gateway.stop())

describe('console pages', () => {
  test('a browser asking for / is sent to /console; HEAD / stays a plain 200 for API clients', async () => {
    const browser = await fetch(`${gateway.url}/`, { headers: { accept: 'text/html,application/xhtml+xml' }, redirect: 'manual' })
    expect(browser.status).toBe(302)
    expect(browser.headers.get('location')).toBe('/console')
    const head = await fetch(`${gateway.url}/`, { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(await head.text()).toBe('')
  })

  test('the page is a shell of embedded assets under a strict Content-Security-Policy', async () => {
    const page = await fetch(`${gateway.url}/console/keys`)
    expect(page.status).toBe(200)
    const csp = page.headers.get('content-security-policy')!
    expect(csp).toContain("script-src 'self'")
    expect(csp).toContain("default-src 'none'")
    expect(csp).not.toContain('unsafe-inline')
    const html = await page.text()
    expect(html).not.toMatch(/<script>|<script [^>]*>[^<]/) // no inline script
    const scripts = [...html.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((match) => match[1]!)
    expect(scripts.length).toBe(3)
    for (const asset of scripts) {
      const response = await fetch(`${gateway.url}${asset}`)
      expect(response.status).toBe(200)
      expect(response.headers.get('cache-control')).toContain('immutable')
      expect((await response.arrayBuffer()).byteLength).toBeGreaterThan(10)
    }
  })
})

describe('sign-in', () => {
  test('the session cookie is HttpOnly, SameSite=Strict, scoped to /console, and Secure behind TLS', async () => {
    const plain = await postSignIn(gateway.url, 'root', adminPassword)
    const cookie = plain.headers.get('set-cookie')!
    expect(cookie).toContain('HttpOnly')
    expect(cookie).toContain('SameSite=Strict')
    expect(cookie).toContain('Path=/console')
    expect(cookie).not.toContain('Secure')
    const proxied = await postSignIn(gateway.url, 'root', adminPassword, { 'x-forwarded-proto': 'https' })
    expect(proxied.headers.get('set-cookie')).toContain('; Secure')
  })

  test('a wrong password and an unknown user get the same answer', async () => {
    const wrong = await postSignIn(gateway.url, 'root', 'not the password')
    const unknown = await postSignIn(gateway.url, 'nobody-here', 'not the password')
    expect(wrong.status).toBe(401)
    expect(unknown.status).toBe(401)
    expect(await wrong.json()).toEqual(await unknown.json())
  })

  test('brute force is slowed: after five failures even the right password must wait, known user or not', async () => {
    const password = await addLogin(gateway.gateway.services.store, 'target', 'admin')
    for (let attempt = 0; attempt < 5; attempt++) {
      expect((await postSignIn(gateway.url, 'target', `guess-${attempt}`)).status).toBe(401)
      expect((await postSignIn(gateway.url, 'ghost', `guess-${attempt}`)).status).toBe(401)
    }
    const blocked = await postSignIn(gateway.url, 'target', password)
    expect(blocked.status).toBe(429)
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(blocked.headers.get('set-cookie')).toBeNull()
    const ghost = await postSignIn(gateway.url, 'ghost', 'guess')
    expect(ghost.status).toBe(429)
    expect((await ghost.json()).error.message).toBe((await blocked.json()).error.message)
  })

  test('a sign-in posted from another site is refused', async () => {
    const response = await postSignIn(gateway.url, 'root', adminPassword, { origin: 'https://evil.example' })
    expect(response.status).toBe(403)
  })
})

describe('sessions and CSRF', () => {
  test('a state change without the CSRF token is refused and changes nothing', async () => {
    const before = (await (await admin.get('/console/api/keys')).json()).length
    const missing = await admin.send('POST', '/console/api/keys', { account_id: gateway.account.id }, { 'x-csrf-token': '' })
    expect(missing.status).toBe(403)
    expect((await missing.json()).error.code).toBe('csrf_failed')
    const wrong = await admin.send('POST', '/console/api/keys', { account_id: gateway.account.id }, { 'x-csrf-token': 'x'.repeat(32) })
    expect(wrong.status).toBe(403)
    expect((await (await admin.get('/console/api/keys')).json()).length).toBe(before)
    const made = await admin.send('POST', '/console/api/keys', { account_id: gateway.account.id })
    expect(made.status).toBe(201)
  })

  test('a form-encoded post (what a cross-site form can send) is refused', async () => {
    const response = await fetch(`${gateway.url}/console/api/accounts`, {
      method: 'POST',
      headers: { cookie: admin.cookie, 'x-csrf-token': admin.csrf, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'name=evil',
    })
    expect(response.status).toBe(415)
    expect(await gateway.gateway.services.store.accounts.findByName('evil')).toBeUndefined()
  })

  test('an API key does not open the console, not even next to a valid cookie', async () => {
    const keyOnly = await fetch(`${gateway.url}/console/api/keys`, { headers: { authorization: `Bearer ${gateway.key}` } })
    expect(keyOnly.status).toBe(401)
    const both = await fetch(`${gateway.url}/console/api/keys`, {
      headers: { authorization: `Bearer ${gateway.key}`, cookie: admin.cookie },
    })
    expect(both.status).toBe(401)
    expect((await both.json()).error.code).toBe('api_key_not_accepted')
  })

  test('a console cookie does not open the public API', async () => {
    const models = await fetch(`${gateway.url}/v1/models`, { headers: { cookie: admin.cookie } })
    expect(models.status).toBe(401)
    const chat = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { cookie: admin.cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'mock-1', messages: [{ role: 'user', content: 'hi' }] }),
    })
    expect(chat.status).toBe(401)
    const client = new OpenAI({ baseURL: gateway.baseUrl, apiKey: 'not-a-key', maxRetries: 0, defaultHeaders: { cookie: admin.cookie } })
    expect(await client.models.list().catch((error: unknown) => error)).toBeInstanceOf(OpenAI.AuthenticationError)
  })

  test('an expired session is refused, and signing out ends the session for good', async () => {
    const { store } = gateway.gateway.services
    const session = await signIn(gateway.url, 'root', adminPassword)
    expect((await session.get('/console/api/session')).status).toBe(200)
    const token = session.cookie.split('=')[1]!
    await store.sessions.extend(hashSessionToken(token), Date.now() - 10_000, Date.now() - 1)
    const expired = await session.get('/console/api/session')
    expect(expired.status).toBe(401)
    expect((await expired.json()).error.code).toBe('session_expired')

    const other = await signIn(gateway.url, 'root', adminPassword)
    const out = await other.send('DELETE', '/console/api/session')
    expect(out.status).toBe(200)
    expect(out.headers.get('set-cookie')).toContain('Max-Age=0')
    expect((await other.get('/console/api/keys')).status).toBe(401)
  })
})
