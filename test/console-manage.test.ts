import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import Anthropic from '@anthropic-ai/sdk'
import { GoogleGenAI } from '@google/genai'
import OpenAI, { toFile } from 'openai'
import type { AccountRecord } from '../src/domain/records.ts'
import { jsonl, pollUntil, startBatchSetup, type BatchSetup } from './support/batches.ts'
import { addLogin, postSignIn, signIn, type ConsoleClient } from './support/console.ts'

// The console's management routes (issue 19) and its Tasks view (issue 16), against a real gateway with real upstreams.
let setup: BatchSetup
let admin: ConsoleClient
let alice: ConsoleClient
let other: AccountRecord
const passwords: Record<string, string> = {}

const url = () => setup.gateway.url
const openAi = (apiKey: string) => new OpenAI({ baseURL: setup.gateway.baseUrl, apiKey, maxRetries: 0 })
const chat = (apiKey: string, model = 'mock-1') =>
  openAi(apiKey).chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] })

beforeAll(async () => {
  setup = await startBatchSetup()
  const { store } = setup.gateway.gateway.services
  other = await setup.gateway.createAccount('other-co', '7')
  passwords.root = await addLogin(store, 'root', 'admin')
  passwords.alice = await addLogin(store, 'alice', 'account-admin', setup.gateway.account.id)
  passwords.bob = await addLogin(store, 'bob', 'account-admin', other.id)
  admin = await signIn(url(), 'root', passwords.root)
  alice = await signIn(url(), 'alice', passwords.alice)
}, 30_000)

afterAll(() => setup.stop())

describe('editing a key', () => {
  test('new limits count for the very next request; fields left out stay; null removes a limit', async () => {
    const { secret, record } = await setup.gateway.createKey({ name: 'editable', budget: 5_000_000_000 })
    const response = await alice.send('PATCH', `/console/api/keys/${record.id}`, { rpm: 1, models: ['mock-1'], budget_usd: '0.000000010' })
    expect(response.status).toBe(200)
    const key = await response.json()
    expect(key).toMatchObject({ id: record.id, name: 'editable', rpm: 1, models: ['mock-1'], budget_usd: '0.00000001', tpm: null })
    // The key cache learned of it at once: gpt-up is refused, and the one request a minute is spent on the first call.
    expect(await chat(secret, 'gpt-up').catch((error: unknown) => error)).toBeInstanceOf(OpenAI.PermissionDeniedError)
    const cleared = await (
      await alice.send('PATCH', `/console/api/keys/${record.id}`, { rpm: null, budget_usd: null, models: null })
    ).json()
    expect(cleared).toMatchObject({ rpm: null, budget_usd: null, models: null, name: 'editable' })
    await chat(secret, 'gpt-up')
  })

  test("bad changes are a 400 naming the field; another account's key is a 404; a revoked key cannot change", async () => {
    const { record } = await setup.gateway.createKey({ name: 'checked' })
    const cases: [unknown, string][] = [
      [{ rpm: 0 }, 'rpm'],
      [{ budget_usd: '0' }, 'budget_usd'],
      [{ budget_usd: '1.0000000001' }, 'budget_usd'],
      [{ expires_at: '2001-01-01T00:00:00Z' }, 'expires_at'],
      [{ models: ['nope'] }, 'nope'],
      [{}, 'Nothing to change'],
    ]
    for (const [body, mention] of cases) {
      const response = await alice.send('PATCH', `/console/api/keys/${record.id}`, body)
      expect({ body, status: response.status }).toEqual({ body, status: 400 })
      expect(JSON.stringify(await response.json())).toContain(mention)
    }
    const foreign = (await setup.gateway.createKey({ accountId: other.id, rpm: 5 })).record
    expect((await alice.send('PATCH', `/console/api/keys/${foreign.id}`, { rpm: 1000 })).status).toBe(404)
    expect((await alice.send('POST', `/console/api/keys/${foreign.id}/rotate`)).status).toBe(404)
    expect((await setup.gateway.gateway.services.store.keys.findById(foreign.id))!.rpm).toBe(5)
    expect((await admin.send('PATCH', `/console/api/keys/${foreign.id}`, { rpm: 7 })).status).toBe(200)
    await admin.send('POST', `/console/api/keys/${record.id}/revoke`)
    expect((await admin.send('PATCH', `/console/api/keys/${record.id}`, { rpm: 7 })).status).toBe(409) // a conflict, as in the admin API: the key is revoked
    // Without the CSRF token a change is refused before anything is read.
    expect((await alice.send('PATCH', `/console/api/keys/${record.id}`, { rpm: 7 }, { 'x-csrf-token': 'wrong' })).status).toBe(403)
  })
})

describe('rotating a key', () => {
  test('a new secret for the same key: the old one is refused at once, spend and history stay', async () => {
    const { secret, record } = await setup.gateway.createKey({ name: 'rotating' })
    await chat(secret)
    await setup.gateway.gateway.services.ledger.drain()
    const spent = (await (await alice.get(`/console/api/keys/${record.id}`)).json()).spent_usd
    const response = await alice.send('POST', `/console/api/keys/${record.id}/rotate`)
    expect(response.status).toBe(200)
    const rotated = await response.json()
    expect(rotated.secret).toMatch(/^tg-[0-9A-Za-z]{40}$/)
    expect(rotated.secret).not.toBe(secret)
    expect(rotated.key).toMatchObject({ id: record.id, name: 'rotating', spent_usd: spent, status: 'active' })
    expect(rotated.key.prefix).toBe(rotated.secret.slice(0, 11))
    expect(await chat(secret).catch((error: unknown) => error)).toBeInstanceOf(OpenAI.AuthenticationError)
    await chat(rotated.secret)
    await setup.gateway.gateway.services.ledger.drain()
    const log = await (await alice.get(`/console/api/requests?key_id=${record.id}`)).json()
    expect(log.requests.length).toBe(2) // the request under the old secret is still the key's
  })
})

describe('passwords', () => {
  test("changing one's own: the current one is checked, other sessions end, this browser stays signed in", async () => {
    const { store } = setup.gateway.gateway.services
    const password = await addLogin(store, 'dora', 'account-admin', setup.gateway.account.id)
    const here = await signIn(url(), 'dora', password)
    const elsewhere = await signIn(url(), 'dora', password)
    const wrong = await here.send('POST', '/console/api/session/password', {
      current_password: 'not it at all',
      new_password: 'a-brand-new-password',
    })
    expect(wrong.status).toBe(400)
    expect((await wrong.json()).error.field).toBe('current_password')
    const short = await here.send('POST', '/console/api/session/password', { current_password: password, new_password: 'short' })
    expect((await short.json()).error.field).toBe('new_password')
    const changed = await here.send('POST', '/console/api/session/password', {
      current_password: password,
      new_password: 'a-brand-new-password',
    })
    expect(changed.status).toBe(200)
    const session = await changed.json()
    const cookie = changed.headers.get('set-cookie')!.split(';')[0]!
    expect(session.csrf_token).not.toBe(here.csrf)
    expect((await elsewhere.get('/console/api/session')).status).toBe(401)
    expect((await here.get('/console/api/session')).status).toBe(401) // the old cookie is gone too…
    expect((await fetch(`${url()}/console/api/session`, { headers: { cookie } })).status).toBe(200) // …the new one works
    expect((await postSignIn(url(), 'dora', password)).status).toBe(401)
    expect((await postSignIn(url(), 'dora', 'a-brand-new-password')).status).toBe(200)
  })

  test("an admin resets another login's password (generated once, or chosen); that login is signed out", async () => {
    const bob = await signIn(url(), 'bob', passwords.bob!)
    const bobId = (await (await bob.get('/console/api/session')).json()).user.id
    expect((await alice.send('POST', `/console/api/users/${bobId}/password`, {})).status).toBe(404)
    const reset = await admin.send('POST', `/console/api/users/${bobId}/password`, {})
    expect(reset.status).toBe(200)
    const { user, password } = await reset.json()
    expect(user.name).toBe('bob')
    expect(password).toMatch(/^[0-9A-Za-z]{24}$/)
    expect((await bob.get('/console/api/session')).status).toBe(401)
    expect((await postSignIn(url(), 'bob', passwords.bob!)).status).toBe(401)
    expect((await postSignIn(url(), 'bob', password)).status).toBe(200)
    const chosen = await admin.send('POST', `/console/api/users/${bobId}/password`, { password: 'chosen-by-the-admin' })
    expect((await chosen.json()).password).toBeUndefined()
    expect((await postSignIn(url(), 'bob', 'chosen-by-the-admin')).status).toBe(200)
    passwords.bob = 'chosen-by-the-admin'
    const self = (await (await admin.get('/console/api/session')).json()).user.id
    expect((await admin.send('POST', `/console/api/users/${self}/password`, {})).status).toBe(400)
  })

  test('an admin unlocks a throttled login: it signs in at once, from the address that was refused', async () => {
    const { store } = setup.gateway.gateway.services
    const password = await addLogin(store, 'erin', 'account-admin', setup.gateway.account.id)
    for (let attempt = 0; attempt < 5; attempt++) expect((await postSignIn(url(), 'erin', 'guess-guess-guess')).status).toBe(401)
    expect((await postSignIn(url(), 'erin', password)).status).toBe(429)
    const erin = (await store.users.findByName('erin'))!
    // An account-admin manages its own account's logins only: another account's is a 404.
    const bob = await signIn(url(), 'bob', passwords.bob!)
    expect((await bob.send('POST', `/console/api/users/${erin.id}/unlock`)).status).toBe(404)
    const unlocked = await admin.send('POST', `/console/api/users/${erin.id}/unlock`)
    expect(await unlocked.json()).toEqual({ unlocked: true, name: 'erin' })
    expect((await postSignIn(url(), 'erin', password)).status).toBe(200)
  })
})

describe('models and route health', () => {
  test('an account user sees what their keys may call, with exact prices; the admin sees every model and route', async () => {
    const { store } = setup.gateway.gateway.services
    const account = await setup.gateway.createAccount('narrow-co', '1')
    const { createKey } = await import('../src/domain/keys.ts')
    await createKey(store.keys, { accountId: account.id, models: ['claude-up'] })
    const carol = await signIn(url(), 'carol', await addLogin(store, 'carol', 'account-admin', account.id))
    const models = await (await carol.get('/console/api/models')).json()
    expect(models).toEqual([
      {
        id: 'claude-up',
        kind: 'chat',
        owned_by: expect.any(String),
        max_output_tokens: 256,
        context_window: null,
        reasoning: false,
        price: { input_usd: '3.00', output_usd: '15.00', cached_input_usd: expect.any(String), cache_write_usd: expect.any(String) },
        batch_price: expect.objectContaining({ input_usd: '1.50', output_usd: '7.50' }),
      },
    ])
    expect((await carol.get('/console/api/routes')).status).toBe(403) // the whole gateway's upstreams: admins only
    const all = await (await admin.get('/console/api/models')).json()
    expect(all.map((model: { id: string }) => model.id)).toContain('gpt-broken')
    expect(all.find((model: { id: string }) => model.id === 'gemini-up').batch_price.input_usd).toBe('0.625')
    expect(all.find((model: { id: string }) => model.id === 'mock-1').batch_price).toBeNull()
    const routes = await (await admin.get('/console/api/routes')).json()
    expect(routes.find((route: { route: string }) => route.route.includes('claude-x'))).toMatchObject({ state: 'closed', failures: 0 })
  })
})

describe('tasks', () => {
  test("list, detail, per-item status and results in each API's shape; another account's task is a 404", async () => {
    const { key } = setup.gateway
    const openai = openAi(key)
    const file = await openai.files.create({
      file: await toFile(
        Buffer.from(
          jsonl([
            {
              custom_id: 'good',
              method: 'POST',
              url: '/v1/chat/completions',
              body: { model: 'gpt-up', messages: [{ role: 'user', content: 'hi' }] },
            },
            {
              custom_id: 'bad',
              method: 'POST',
              url: '/v1/chat/completions',
              body: { model: 'gpt-broken', messages: [{ role: 'user', content: 'hi' }] },
            },
          ]),
        ),
        'in.jsonl',
      ),
      purpose: 'batch',
    })
    const openAiBatch = await openai.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' })
    const anthropic = new Anthropic({ baseURL: url(), apiKey: key, maxRetries: 0 })
    const messageBatch = await anthropic.messages.batches.create({
      requests: [{ custom_id: 'm1', params: { model: 'claude-up', max_tokens: 32, messages: [{ role: 'user', content: 'hi' }] } }],
    })
    const gemini = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: url() } })
    const job = await gemini.batches.create({ model: 'gemini-up', src: [{ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }] })
    const geminiId = job.name!.replace(/^batches\//, '')

    const ended = (id: string) =>
      pollUntil(
        async () => (await alice.get(`/console/api/tasks/${id}`)).json(),
        (task) => task.finished_at !== null,
      )
    const openAiTask = await ended(openAiBatch.id)
    expect(openAiTask).toMatchObject({
      kind: 'openai',
      status: 'completed',
      counts: { total: 2, succeeded: 1, failed: 1, pending: 0 },
      spent_usd: '0.000025',
    })
    expect((await ended(messageBatch.id)).spent_usd).toBe('0.000069') // 11 × 1.5 + 7 × 7.5 per 1M
    await ended(geminiId)

    const list = await (await alice.get('/console/api/tasks')).json()
    expect(list.tasks.map((task: { id: string }) => task.id)).toEqual([geminiId, messageBatch.id, openAiBatch.id])
    const paged = await (await alice.get('/console/api/tasks?limit=2')).json()
    expect(paged.tasks.length).toBe(2)
    const rest = await (await alice.get(`/console/api/tasks?limit=2&before=${paged.next}`)).json()
    expect(rest).toMatchObject({ tasks: [{ id: openAiBatch.id }], next: null })

    const items = await (await alice.get(`/console/api/tasks/${openAiBatch.id}/items`)).json()
    expect(items.items.map((item: { custom_id: string; status: string }) => [item.custom_id, item.status])).toEqual([
      ['good', 'succeeded'],
      ['bad', 'errored'],
    ])
    expect(items.items[1].error).toBeString()
    expect(items.next).toBeNull()

    const download = await alice.get(`/console/api/tasks/${openAiBatch.id}/results`)
    expect(download.headers.get('content-disposition')).toContain('attachment')
    const lines = (await download.text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(lines.map((line) => [line.custom_id, line.response.status_code])).toEqual([
      ['good', 200],
      ['bad', expect.any(Number)],
    ])
    expect(lines[0].response.body.object).toBe('chat.completion')
    const anthropicLines = (await (await alice.get(`/console/api/tasks/${messageBatch.id}/results`)).text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(anthropicLines).toMatchObject([{ custom_id: 'm1', result: { type: 'succeeded', message: { type: 'message' } } }])
    const geminiLines = (await (await alice.get(`/console/api/tasks/${geminiId}/results`)).text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(geminiLines[0].response.candidates).toBeArray()

    // Bob's account sees none of it; a crafted ID is a 404 like a missing one. The admin sees them, with the account.
    const bob = await signIn(url(), 'bob', passwords.bob!)
    expect((await (await bob.get('/console/api/tasks')).json()).tasks).toEqual([])
    for (const path of [
      `/console/api/tasks/${openAiBatch.id}`,
      `/console/api/tasks/${openAiBatch.id}/items`,
      `/console/api/tasks/${openAiBatch.id}/results`,
      `/console/api/tasks?account_id=${setup.gateway.account.id}`,
      '/console/api/tasks/batch_nope',
    ]) {
      expect({ path, status: (await bob.get(path)).status }).toEqual({ path, status: 404 })
    }
    const everything = await (await admin.get('/console/api/tasks')).json()
    expect(everything.tasks.find((task: { id: string }) => task.id === openAiBatch.id).account).toBe(setup.gateway.account.name)
    expect((await alice.get('/console/api/tasks?before=garbage')).status).toBe(400)
  }, 60_000)
})

describe('request log as CSV', () => {
  test('the filters apply, money is exact, and an account user gets only their own rows', async () => {
    const { secret } = await setup.gateway.createKey({ name: '=HYPERLINK("x")' })
    await chat(secret)
    await chat(setup.gateway.key, 'gpt-up')
    const foreign = (await setup.gateway.createKey({ accountId: other.id })).secret
    await chat(foreign)
    await setup.gateway.gateway.services.ledger.drain()
    const response = await alice.get('/console/api/requests/csv?model=mock-1')
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toStartWith('text/csv')
    expect(response.headers.get('content-disposition')).toMatch(/attachment; filename="tollgate-requests-\d{4}-\d\d-\d\d\.csv"/)
    const [header, ...rows] = (await response.text()).trim().split('\r\n')
    expect(header!.split(',').slice(0, 4)).toEqual(['at', 'request_id', 'account_id', 'account'])
    const cost = header!.split(',').indexOf('cost_usd')
    expect(rows.length).toBeGreaterThan(0)
    const json = await (await alice.get('/console/api/requests?model=mock-1&limit=200')).json()
    expect(rows.length).toBe(json.requests.length)
    expect(rows.map((row) => row.split(',')[cost])).toEqual(json.requests.map((row: { cost_usd: string }) => row.cost_usd))
    expect(rows.every((row) => row.split(',')[2] === String(setup.gateway.account.id))).toBe(true)
    // A key name a spreadsheet would run as a formula is written as text.
    expect(rows.some((row) => row.includes(`"'=HYPERLINK(""x"")"`))).toBe(true)
    expect((await alice.get(`/console/api/requests/csv?account_id=${other.id}`)).status).toBe(404)
    const all = (await (await admin.get('/console/api/requests/csv')).text()).trim().split('\r\n')
    expect(all.some((row) => row.includes('other-co'))).toBe(true)
  })
})

describe('documentation', () => {
  test('every new route is on /docs with a tag and a summary', async () => {
    const document = await (await fetch(`${url()}/docs/json`)).json()
    const expected: [string, string][] = [
      ['/console/api/keys/{id}', 'patch'],
      ['/console/api/keys/{id}/rotate', 'post'],
      ['/console/api/session/password', 'post'],
      ['/console/api/users/{id}/password', 'post'],
      ['/console/api/users/{id}/unlock', 'post'],
      ['/console/api/models', 'get'],
      ['/console/api/routes', 'get'],
      ['/console/api/tasks', 'get'],
      ['/console/api/tasks/{id}', 'get'],
      ['/console/api/tasks/{id}/items', 'get'],
      ['/console/api/tasks/{id}/results', 'get'],
      ['/console/api/requests/csv', 'get'],
    ]
    for (const [path, method] of expected) {
      const operation = document.paths[path]?.[method]
      expect({ path, method, summary: typeof operation?.summary, tags: operation?.tags?.length }).toEqual({
        path,
        method,
        summary: 'string',
        tags: 1,
      })
    }
  })
})
