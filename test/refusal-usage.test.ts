import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Logger } from '../src/core/logger.ts'
import type { AccountRecord } from '../src/domain/records.ts'
import { addLogin, signIn, type ConsoleClient } from './support/console.ts'
import { startTestGateway, type TestGateway } from './support/gateway.ts'
import { jsonReply, startUpstream, type TestUpstream } from './support/upstream.ts'

// Every request that got as far as a known key leaves a usage row, refusals included (status, error code, cost 0);
// a request without a valid key leaves a log line and a counter, never a row.

const lines: { fields: Record<string, unknown>; message: string }[] = []
const capture: Logger = {
  info: (fields, message) => lines.push({ fields, message }),
  warn: (fields, message) => lines.push({ fields, message }),
  error: (fields, message) => lines.push({ fields, message }),
}

let gateway: TestGateway
let upstream: TestUpstream
let admin: ConsoleClient
let poor: AccountRecord
const price = { input: 1, output: 2 }

beforeAll(async () => {
  upstream = startUpstream(() =>
    jsonReply({ error: { message: "Unsupported parameter: 'foo'", type: 'invalid_request_error', param: 'foo' } }, 400),
  )
  gateway = await startTestGateway({
    logger: capture,
    config: {
      providers: [
        { name: 'mock', type: 'mock' },
        { name: 'picky', type: 'openai', base_url: `${upstream.url}/v1` },
      ],
      models: [
        { id: 'mock-1', provider: 'mock', price, max_output_tokens: 4096 },
        { id: 'mock-2', provider: 'mock', price, max_output_tokens: 4096 },
        { id: 'picky', provider: 'picky', price, max_output_tokens: 4096 },
      ],
    },
  })
  poor = await gateway.createAccount('poor-co', '0.000001')
  admin = await signIn(gateway.url, 'root', await addLogin(gateway.gateway.services.store, 'root', 'admin'))
}, 30_000)

afterAll(async () => {
  await gateway.stop()
  await upstream.stop()
})

const hello = [{ role: 'user', content: 'hi' }]

async function post(key: string, body: unknown): Promise<{ status: number; requestId: string | null; body: any }> {
  const response = await fetch(`${gateway.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
  return { status: response.status, requestId: response.headers.get('x-request-id'), body: await response.json() }
}

async function rowsOfKey(keyId: string) {
  await gateway.gateway.services.ledger.flush()
  return gateway.gateway.services.store.usage.listRequests({ keyId }, 100)
}

describe('refused requests leave a usage row', () => {
  test('a 429 from an rpm:1 key: one row with status 429, rate_limit code, cost 0; the console shows it under status 429', async () => {
    const { secret, record } = await gateway.createKey({ rpm: 1 })
    const before = (await gateway.settled()).balance
    expect((await post(secret, { model: 'mock-1', messages: hello })).status).toBe(200)
    const refused = await post(secret, { model: 'mock-1', messages: hello })
    expect(refused.status).toBe(429)
    const rows = await rowsOfKey(record.id)
    expect(rows.map((row) => row.status).sort()).toEqual([200, 429])
    const row = rows.find((row) => row.status === 429)!
    expect(row).toMatchObject({ cost: 0, model: 'mock-1', provider: '', inputTokens: 0, outputTokens: 0, accountId: gateway.account.id })
    expect(row.errorType).toBe(refused.body.error.code ?? 'rate_limit')
    // Only the successful request was billed.
    const spent = rows.find((row) => row.status === 200)!.cost
    expect((await gateway.settled()).balance).toBe(before - spent)

    const log = await (await admin.get(`/console/api/requests?key_id=${record.id}&status=429`)).json()
    expect(log.requests).toHaveLength(1)
    expect(log.requests[0]).toMatchObject({ status: 429, cost_usd: '0.00' })
    // The summary honours the status filter: it counts the 429 alone, not the success.
    const usage = await (await admin.get(`/console/api/usage?key_id=${record.id}&status=429`)).json()
    expect(usage.totals.requests).toBe(1)
    const all = await (await admin.get(`/console/api/usage?key_id=${record.id}`)).json()
    expect(all.totals.requests).toBe(2)
    // And a log line says so, with the key's id.
    expect(lines.some((line) => line.message === 'request' && line.fields.key === record.id && line.fields.status === 429)).toBe(true)
  })

  test('a 403 for a model the key may not use, and a 400 for a bad field: one row each, cost 0', async () => {
    const { secret, record } = await gateway.createKey({ models: ['mock-1'] })
    const before = (await gateway.settled()).balance
    const forbidden = await post(secret, { model: 'mock-2', messages: hello })
    expect(forbidden.status).toBe(403)
    const bad = await post(secret, { model: 'mock-1', messages: hello, temperature: 'hot' })
    expect(bad.status).toBe(400)
    const broken = await post(secret, '{"model": "mock-1", "messages": [')
    expect(broken.status).toBe(400)
    const rows = await rowsOfKey(record.id)
    expect(rows).toHaveLength(3)
    const byRequest = new Map(rows.map((row) => [row.requestId, row]))
    expect(byRequest.get(forbidden.requestId!)).toMatchObject({ status: 403, errorType: 'model_not_permitted', model: 'mock-2', cost: 0 })
    expect(byRequest.get(bad.requestId!)).toMatchObject({ status: 400, cost: 0 })
    expect(byRequest.get(broken.requestId!)).toMatchObject({ status: 400, cost: 0, model: '' })
    expect((await gateway.settled()).balance).toBe(before)
  })

  test('a 403 for an insufficient balance: one row, and the balance untouched', async () => {
    const { secret, record } = await gateway.createKey({ accountId: poor.id })
    const refused = await post(secret, { model: 'mock-1', messages: hello })
    expect(refused.status).toBe(403)
    const rows = await rowsOfKey(record.id)
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({
      status: 403,
      errorType: 'insufficient_balance',
      cost: 0,
      accountId: poor.id,
      requestId: refused.requestId!,
    })
    await gateway.settled()
    expect((await gateway.gateway.services.store.accounts.findById(poor.id))!).toMatchObject({ balance: poor.balance, reserved: 0 })
  })

  test('a failure after the hold is recorded once, by its settlement', async () => {
    const { secret, record } = await gateway.createKey()
    const failed = await post(secret, { model: 'picky', messages: hello })
    expect(failed.status).toBe(400)
    const rows = await rowsOfKey(record.id)
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({ status: 400, provider: 'picky', requestId: failed.requestId! })
  })

  test('a request without a valid key leaves no row, but a counter and a log line without the secret', async () => {
    const { store } = gateway.gateway.services
    const countRows = async () => {
      await gateway.gateway.services.ledger.flush()
      return (await store.usage.summarize({})).requests
    }
    const rowsBefore = await countRows()
    const secret = 'tg-made-up-secret-0123456789abcdef'
    const refused = await post(secret, { model: 'mock-1', messages: hello })
    expect(refused.status).toBe(401)
    expect(await countRows()).toBe(rowsBefore)
    const line = lines.find((line) => line.fields.request_id === refused.requestId)!
    expect(line.fields).toMatchObject({ status: 401, error: 'invalid_api_key' })
    expect(JSON.stringify(lines)).not.toContain('made-up-secret')
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text()
    expect(metrics).toMatch(/tollgate_refused_requests_total\{status="401",reason="invalid_api_key"\} [1-9]/)
    expect(metrics).toMatch(/tollgate_refused_requests_total\{status="429",reason="[a-z_]+"\} 1/)
  })
})
