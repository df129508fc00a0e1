import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { addLogin, signIn, type ConsoleClient } from './support/console.ts'
import { startTestGateway, type TestGateway } from './support/gateway.ts'

let gateway: TestGateway
let admin: ConsoleClient

beforeAll(async () => {
  gateway = await startTestGateway()
  admin = await signIn(gateway.url, 'root', await addLogin(gateway.gateway.services.store, 'root', 'admin'))
})

afterAll(() => gateway.stop())

/** Every absolute URL in a text whose host is not the gateway's own (an SVG's xmlns names a namespace, loads nothing). */
function foreignUrls(text: string, ownHost: string): string[] {
  return [...text.replace(/xmlns(:\w+)?="[^"]*"/g, '').matchAll(/https?:\/\/[^\s"'`)<>\\]+/g)]
    .map((match) => match[0])
    .filter((url) => {
      try {
        return new URL(url).host !== ownHost
      } catch {
        return true
      }
    })
}

describe('the console API documentation', () => {
  test('GET /docs/json is an OpenAPI 3 document of the console API, with request body schemas', async () => {
    const response = await fetch(`${gateway.url}/docs/json`)
    expect(response.status).toBe(200)
    const spec = await response.json()
    expect(spec.openapi).toMatch(/^3\./)
    expect(Object.keys(spec.paths)).toEqual(
      expect.arrayContaining([
        '/console/api/session',
        '/console/api/keys',
        '/console/api/keys/{id}/revoke',
        '/console/api/accounts/{id}/credits',
        '/console/api/usage',
        '/console/api/requests',
        '/console/api/users',
      ]),
    )
    // The model endpoints, pages and the docs themselves are not part of it (the admin API is: admin-api.test.ts).
    expect(Object.keys(spec.paths).every((path) => path.startsWith('/console/api/') || path.startsWith('/admin/api/'))).toBe(true)
    const createKey = spec.paths['/console/api/keys'].post
    expect(createKey.tags).toEqual(['API keys'])
    const body = createKey.requestBody.content['application/json'].schema
    expect(Object.keys(body.properties)).toEqual(
      expect.arrayContaining(['account_id', 'name', 'models', 'rpm', 'budget_usd', 'expires_at']),
    )
    expect(createKey.responses['201'].content['application/json'].schema.properties.secret.type).toBe('string')
    expect(spec.paths['/console/api/accounts/{id}/credits'].post.requestBody.content['application/json'].schema.required).toEqual([
      'amount_usd',
      'note',
    ])
    // Each route names its permission and the roles holding it: the README's role matrix, route by route.
    expect(spec.paths['/console/api/accounts/{id}/credits'].post).toMatchObject({ 'x-permission': 'accounts:credit', 'x-roles': ['admin'] })
    expect(createKey).toMatchObject({ 'x-permission': 'keys:write', 'x-roles': ['admin', 'account-admin'] })
  })

  test('GET /docs is a page whose every file comes from the gateway itself, under the console CSP', async () => {
    const host = new URL(gateway.url).host
    const page = await fetch(`${gateway.url}/docs`)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toContain('text/html')
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'")
    const html = await page.text()
    expect(foreignUrls(html, host)).toEqual([])
    expect(html).not.toMatch(/<script>|<script [^>]*>[^<]/) // no inline script: the CSP would block it
    const files = [...html.matchAll(/(?:src|href)="([^"]+)"/g)]
      .map((match) => match[1]!)
      .filter((url) => url.startsWith('/console/assets/'))
    expect(files.some((file) => file.endsWith('.js'))).toBe(true)
    for (const file of files) {
      const response = await fetch(`${gateway.url}${file}`)
      expect(response.status).toBe(200)
      expect(foreignUrls(await response.text(), host)).toEqual([])
    }
  })
})

describe('request schemas answer in the console error shape', () => {
  test("a body failing the t schema is a 400 naming the field, not Elysia's validation dump", async () => {
    const response = await admin.send('POST', '/console/api/keys', { account_id: gateway.account.id, rpm: 'often' })
    expect(response.status).toBe(400)
    const { error } = await response.json()
    expect(error).toEqual({ message: expect.stringContaining("'rpm'"), code: 'invalid_request', field: 'rpm' })
    expect(JSON.stringify(error)).not.toContain('"type":"validation"')
  })

  test('a missing required field and a wrong literal are named too', async () => {
    const missing = await (await admin.send('POST', '/console/api/accounts/1/credits', { note: 'no amount' })).json()
    expect(missing.error).toMatchObject({ code: 'invalid_request', field: 'amount_usd' })
    expect(missing.error.message).toStartWith("Missing 'amount_usd'")
    const role = await admin.send('POST', '/console/api/users', { name: 'someone', role: 'boss' })
    expect(role.status).toBe(400)
    expect((await role.json()).error).toEqual({
      message: `Invalid value for 'role': "admin", "account-admin" or "viewer".`,
      code: 'invalid_request',
      field: 'role',
    })
  })

  test('the session checks answer before the schema: signed out is 401, a foreign origin 403', async () => {
    const signedOut = await fetch(`${gateway.url}/console/api/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"rpm":"x"}',
    })
    expect(signedOut.status).toBe(401)
    const foreign = await admin.send('POST', '/console/api/keys', { rpm: 'x' }, { origin: 'https://evil.example' })
    expect(foreign.status).toBe(403)
  })
})
