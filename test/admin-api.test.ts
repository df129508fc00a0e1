import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createAdminToken, revokeAdminToken } from '../src/domain/admin-tokens.ts'
import { addLogin, signIn } from './support/console.ts'
import { mockConfig, startTestGateway, type TestGateway } from './support/gateway.ts'

/**
 * The admin API over plain HTTP, as a script would drive it: an admin token in the Authorization header, JSON in and
 * out. The gateway is real (mock provider, SQLite file), and every key made here is used on /v1 for real.
 */
let gateway: TestGateway
let full: string
let readOnly: string
let revoked: string

beforeAll(async () => {
  gateway = await startTestGateway({ balanceUsd: '1' })
  const { adminTokens } = gateway.gateway.services.store
  full = (await createAdminToken(adminTokens, 'deploy-bot', 'full')).secret
  readOnly = (await createAdminToken(adminTokens, 'dashboards', 'read')).secret
  const gone = await createAdminToken(adminTokens, 'old-bot', 'full')
  await revokeAdminToken(adminTokens, gone.record.id)
  revoked = gone.secret
})

afterAll(() => gateway.stop())

async function call(token: string | undefined, method: string, path: string, body?: unknown) {
  const headers: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` }
  if (body !== undefined) headers['content-type'] = 'application/json'
  const response = await fetch(`${gateway.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
  const text = await response.text()
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined }
}

/** One chat completion with a key, as any OpenAI client would send it. */
async function chat(secret: string) {
  const response = await fetch(`${gateway.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'mock-1', messages: [{ role: 'user', content: 'hello' }] }),
  })
  return { status: response.status, body: (await response.json()) as { error?: { code?: string } } }
}

describe('a full-scope admin token runs the whole life of an account and its key', () => {
  test('create, credit, key, limit, rotate, usage', async () => {
    const created = await call(full, 'POST', '/admin/api/accounts', { name: 'robot-co' })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({ name: 'robot-co', balance_usd: '0.00' })
    const accountId = created.body.id as number

    const credited = await call(full, 'POST', `/admin/api/accounts/${accountId}/credits`, { amount_usd: '12.5', note: 'invoice 42' })
    expect(credited.status).toBe(201)
    expect(credited.body.balance_usd).toBe('12.50')
    const ledger = await gateway.gateway.services.store.accounts.ledgerEntries(accountId)
    expect(ledger.at(-1)).toMatchObject({ note: 'invoice 42', actor: 'admin-token:deploy-bot' })
    expect((await call(full, 'GET', `/admin/api/accounts/${accountId}`)).body.balance_usd).toBe('12.50')
    expect((await call(full, 'GET', '/admin/api/accounts')).body.map((account: { name: string }) => account.name)).toContain('robot-co')

    const made = await call(full, 'POST', '/admin/api/keys', { account_id: accountId, name: 'ci', models: ['mock-1'], budget_usd: '5.00' })
    expect(made.status).toBe(201)
    expect(made.body.key).toMatchObject({
      account: 'robot-co',
      name: 'ci',
      models: ['mock-1'],
      budget_usd: '5.00',
      status: 'active',
      rpm: null,
    })
    const keyId = made.body.key.id as string
    const secret = made.body.secret as string
    expect(secret).toStartWith('tg-')
    expect((await chat(secret)).status).toBe(200)

    // A limit set through the API counts from the very next request.
    const limited = await call(full, 'PATCH', `/admin/api/keys/${keyId}`, { rpm: 1 })
    expect(limited.status).toBe(200)
    expect(limited.body).toMatchObject({ id: keyId, rpm: 1, models: ['mock-1'], budget_usd: '5.00' })
    expect((await chat(secret)).status).toBe(200)
    const refused = await chat(secret)
    expect(refused.status).toBe(429)
    // Clearing it (null) lifts it at once.
    expect((await call(full, 'PATCH', `/admin/api/keys/${keyId}`, { rpm: null, expires_at: '2099-01-01T00:00:00Z' })).body).toMatchObject({
      rpm: null,
      expires_at: '2099-01-01T00:00:00.000Z',
    })
    expect((await chat(secret)).status).toBe(200)

    // Rotation: a new secret for the same key; the old one is refused by the very next request.
    const rotated = await call(full, 'POST', `/admin/api/keys/${keyId}/rotate`)
    expect(rotated.status).toBe(200)
    expect(rotated.body.key.id).toBe(keyId)
    expect(rotated.body.key.prefix).toBe(rotated.body.secret.slice(0, 11))
    expect(rotated.body.secret).not.toBe(secret)
    const old = await chat(secret)
    expect(old.status).toBe(401)
    expect(old.body.error?.code).toBe('invalid_api_key')
    expect((await chat(rotated.body.secret)).status).toBe(200)

    // The history stayed with the key: every billed request, before and after the rotation, under the same key ID.
    await gateway.gateway.services.ledger.drain()
    const log = await call(readOnly, 'GET', `/admin/api/requests?key_id=${keyId}`)
    expect(log.status).toBe(200)
    // The four answered requests, and the one refused by rpm 1 (refusals leave a row too, at no cost).
    expect(log.body.requests.map((row: { status: number }) => row.status).filter((status: number) => status === 200)).toEqual([
      200, 200, 200, 200,
    ])
    expect(log.body.requests.map((row: { status: number }) => row.status)).toContain(429)
    expect(new Set(log.body.requests.map((row: { key_id: string }) => row.key_id))).toEqual(new Set([keyId]))
    const ok = await call(readOnly, 'GET', `/admin/api/requests?account_id=${accountId}&status=2xx&limit=2`)
    expect(ok.body.requests).toHaveLength(2)
    expect(ok.body.next).toBeString()
    const summary = await call(readOnly, 'GET', `/admin/api/usage?account_id=${accountId}`)
    expect(summary.status).toBe(200)
    expect(summary.body.totals.requests).toBe(5) // four answered, one refused (429, no cost)
    expect(summary.body.by_key).toEqual([expect.objectContaining({ id: keyId, label: 'ci' })])
    const everything = await call(readOnly, 'GET', '/admin/api/usage')
    expect(everything.body.by_account.map((group: { label: string }) => group.label)).toContain('robot-co')

    const listed = await call(readOnly, 'GET', `/admin/api/keys?account_id=${accountId}`)
    expect(listed.body.map((key: { id: string }) => key.id)).toEqual([keyId])

    const gone = await call(full, 'POST', `/admin/api/keys/${keyId}/revoke`)
    expect(gone.body).toMatchObject({ id: keyId, status: 'revoked' })
    expect((await chat(rotated.body.secret)).status).toBe(401)
    const late = await call(full, 'POST', `/admin/api/keys/${keyId}/rotate`)
    expect(late.status).toBe(409)
    expect(late.body.error.code).toBe('conflict')
  })

  test('mistakes get the console error shape: 400 naming the field, 404, 409', async () => {
    const unknownModel = await call(full, 'POST', '/admin/api/keys', { account_id: gateway.account.id, models: ['gpt-9'] })
    expect(unknownModel.status).toBe(400)
    expect(unknownModel.body.error.message).toContain('gpt-9')
    const noAccount = await call(full, 'POST', '/admin/api/keys', { name: 'orphan' })
    expect(noAccount.status).toBe(400)
    expect(noAccount.body.error).toMatchObject({ code: 'invalid_request', field: 'account_id' })
    const badLimit = await call(full, 'PATCH', `/admin/api/keys/${gateway.keyRecord.id}`, { rpm: 'lots' })
    expect(badLimit.status).toBe(400)
    expect(badLimit.body.error.field).toBe('rpm')
    const nothing = await call(full, 'PATCH', `/admin/api/keys/${gateway.keyRecord.id}`, {})
    expect(nothing.status).toBe(400)
    expect(nothing.body.error.message).toContain('Nothing to change')
    const typo = await call(full, 'PATCH', `/admin/api/keys/${gateway.keyRecord.id}`, { rpm_limit: 5 })
    expect(typo.status).toBe(400)
    expect((await call(full, 'GET', '/admin/api/keys/key_nope')).status).toBe(404)
    const noRoute = await call(full, 'DELETE', '/admin/api/accounts')
    expect(noRoute.status).toBe(404)
    expect(noRoute.body.error.code).toBe('not_found')
    expect((await call(full, 'POST', '/admin/api/accounts/999999/credits', { amount_usd: '1', note: 'x' })).status).toBe(404)
    const twice = await call(full, 'POST', '/admin/api/accounts', { name: gateway.account.name })
    expect(twice.status).toBe(409)
    expect(twice.body.error.code).toBe('conflict')
    const overdraft = await call(full, 'POST', `/admin/api/accounts/${gateway.account.id}/credits`, { amount_usd: '-1000', note: 'oops' })
    expect(overdraft.status).toBe(400)
    const form = await fetch(`${gateway.url}/admin/api/accounts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${full}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'name=x',
    })
    expect(form.status).toBe(415)
  })
})

describe('who may do what', () => {
  test('a read-only token reads everything and is refused every write with 403, changing nothing', async () => {
    const { store } = gateway.gateway.services
    for (const path of [
      '/admin/api/accounts',
      `/admin/api/accounts/${gateway.account.id}`,
      '/admin/api/keys',
      `/admin/api/keys/${gateway.keyRecord.id}`,
      '/admin/api/usage',
      '/admin/api/requests',
    ]) {
      expect({ path, status: (await call(readOnly, 'GET', path)).status }).toEqual({ path, status: 200 })
    }
    const before = {
      balance: (await store.accounts.findById(gateway.account.id))!.balance,
      key: await store.keys.findById(gateway.keyRecord.id),
    }
    const writes: [string, string, unknown][] = [
      ['POST', '/admin/api/accounts', { name: 'sneaky' }],
      ['POST', `/admin/api/accounts/${gateway.account.id}/credits`, { amount_usd: '100', note: 'free money' }],
      ['POST', '/admin/api/keys', { account_id: gateway.account.id }],
      ['PATCH', `/admin/api/keys/${gateway.keyRecord.id}`, { rpm: 1 }],
      ['POST', `/admin/api/keys/${gateway.keyRecord.id}/revoke`, undefined],
      ['POST', `/admin/api/keys/${gateway.keyRecord.id}/rotate`, undefined],
      // Refused before the body is looked at: no validation message leaks to a token that may not write.
      ['POST', '/admin/api/accounts', { name: 42 }],
    ]
    for (const [method, path, body] of writes) {
      const response = await call(readOnly, method, path, body)
      expect({ path, status: response.status, code: response.body.error.code }).toEqual({ path, status: 403, code: 'read_only_token' })
    }
    expect(await store.accounts.findByName('sneaky')).toBeUndefined()
    expect((await store.accounts.findById(gateway.account.id))!.balance).toBe(before.balance)
    expect(await store.keys.findById(gateway.keyRecord.id)).toEqual(before.key)
    expect((await store.keys.list(gateway.account.id)).length).toBe(1)
  })

  test('a revoked token, a made-up token, no token: 401 with a Bearer challenge', async () => {
    for (const [token, code] of [
      [revoked, 'invalid_admin_token'],
      [`tga-${'x'.repeat(40)}`, 'invalid_admin_token'],
      [undefined, 'missing_admin_token'],
    ] as const) {
      const response = await call(token, 'GET', '/admin/api/accounts')
      expect(response.status).toBe(401)
      expect(response.body.error.code).toBe(code)
      expect(response.headers.get('www-authenticate')).toStartWith('Bearer')
    }
  })

  test('an API key does not open the admin API, even a valid one', async () => {
    for (const method of ['GET', 'POST']) {
      const response = await call(gateway.key, method, '/admin/api/accounts', method === 'POST' ? { name: 'via-key' } : undefined)
      expect(response.status).toBe(401)
      expect(response.body.error.code).toBe('admin_token_required')
    }
    const viaHeader = await fetch(`${gateway.url}/admin/api/accounts`, { headers: { 'x-api-key': gateway.key } })
    expect(viaHeader.status).toBe(401)
  })

  test('a console session does not open the admin API', async () => {
    const { store } = gateway.gateway.services
    const admin = await signIn(gateway.url, 'root', await addLogin(store, 'root', 'admin'))
    expect((await admin.get('/admin/api/accounts')).status).toBe(401)
    expect((await admin.get('/console/api/accounts')).status).toBe(200)
  })

  test('an admin token opens neither the model endpoints nor the console', async () => {
    const model = await chat(full)
    expect(model.status).toBe(401)
    const models = await fetch(`${gateway.baseUrl}/models`, { headers: { authorization: `Bearer ${full}` } })
    expect(models.status).toBe(401)
    const consoleApi = await fetch(`${gateway.url}/console/api/accounts`, { headers: { authorization: `Bearer ${full}` } })
    expect(consoleApi.status).toBe(401)
  })

  test('the last use of a token is recorded', async () => {
    const { store } = gateway.gateway.services
    const token = (await store.adminTokens.list()).find((item) => item.name === 'dashboards')!
    expect(token.lastUsedAt).not.toBeNull()
    expect((await store.adminTokens.list()).find((item) => item.name === 'old-bot')!.lastUsedAt).toBeNull()
  })
})

describe('the OpenAPI document', () => {
  test('/docs/json lists the admin API under its tag, with the bearer scheme', async () => {
    const spec = await (await fetch(`${gateway.url}/docs/json`)).json()
    expect(Object.keys(spec.paths)).toEqual(
      expect.arrayContaining([
        '/admin/api/accounts',
        '/admin/api/accounts/{id}/credits',
        '/admin/api/keys',
        '/admin/api/keys/{id}',
        '/admin/api/keys/{id}/rotate',
        '/admin/api/keys/{id}/revoke',
        '/admin/api/usage',
        '/admin/api/requests',
      ]),
    )
    expect(spec.components.securitySchemes.adminToken).toMatchObject({ type: 'http', scheme: 'bearer' })
    expect(spec.tags.map((tag: { name: string }) => tag.name)).toContain('Admin API')
    const update = spec.paths['/admin/api/keys/{id}'].patch
    expect(update.tags).toEqual(['Admin API'])
    expect(update.security).toEqual([{ adminToken: [] }])
    expect(Object.keys(update.requestBody.content['application/json'].schema.properties)).toEqual(
      expect.arrayContaining(['rpm', 'tpm', 'concurrency', 'models', 'budget_usd', 'expires_at']),
    )
    expect(spec.paths['/admin/api/keys/{id}/rotate'].post.responses['200'].content['application/json'].schema.properties.secret.type).toBe(
      'string',
    )
  })
})

describe('/metrics and /status behind an admin token (admin.protect_metrics)', () => {
  test('open by default', async () => {
    expect((await fetch(`${gateway.url}/metrics`)).status).toBe(200)
    expect((await fetch(`${gateway.url}/status`)).status).toBe(200)
  })

  test('protected: a read token is enough; no token, an API key or a revoked token is refused', async () => {
    const guarded = await startTestGateway({ config: { ...mockConfig, admin: { protect_metrics: true } } })
    try {
      const { adminTokens } = guarded.gateway.services.store
      const reader = (await createAdminToken(adminTokens, 'prometheus', 'read')).secret
      const dropped = await createAdminToken(adminTokens, 'old-scraper', 'read')
      await revokeAdminToken(adminTokens, dropped.record.id)
      for (const path of ['/metrics', '/status']) {
        const open = await fetch(`${guarded.url}${path}`)
        expect({ path, status: open.status }).toEqual({ path, status: 401 })
        expect(open.headers.get('www-authenticate')).toStartWith('Bearer')
        for (const secret of [guarded.key, dropped.secret]) {
          expect((await fetch(`${guarded.url}${path}`, { headers: { authorization: `Bearer ${secret}` } })).status).toBe(401)
        }
        const allowed = await fetch(`${guarded.url}${path}`, { headers: { authorization: `Bearer ${reader}` } })
        expect({ path, status: allowed.status }).toEqual({ path, status: 200 })
      }
      const scraped = await fetch(`${guarded.url}/metrics`, { headers: { authorization: `Bearer ${reader}` } })
      expect(await scraped.text()).toContain('tollgate_requests_total')
      // The model endpoints do not change: an API key still works there.
      const chatted = await fetch(`${guarded.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${guarded.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'mock-1', messages: [{ role: 'user', content: 'hi' }] }),
      })
      expect(chatted.status).toBe(200)
    } finally {
      await guarded.stop()
    }
  })
})
