import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import Anthropic from '@anthropic-ai/sdk'
import OpenAI, { toFile } from 'openai'
import { createAdminToken } from '../src/domain/admin-tokens.ts'
import type { AdminTokenRecord } from '../src/domain/records.ts'
import { auditRowsOf } from './support/audit.ts'
import { startTestGateway, type TestGateway } from './support/gateway.ts'

/**
 * The admin API's changes and a key holder's batch cancellations, each one audit row naming who made it; and the
 * audit log read through the admin API, which only a full token may.
 */
let gateway: TestGateway
let full: { record: AdminTokenRecord; secret: string }
let read: string
const address = '127.0.0.1'

beforeAll(async () => {
  gateway = await startTestGateway({
    config: {
      // Slow enough that a batch is still running when its holder cancels it.
      providers: [{ name: 'mock', type: 'mock', chunk_delay_ms: 30 }],
      models: [{ id: 'mock-1', provider: 'mock', price: { input: 1, output: 2 }, max_output_tokens: 256 }],
      tasks: { concurrency: 1, per_account: 1 },
    },
  })
  const { adminTokens } = gateway.gateway.services.store
  full = await createAdminToken(adminTokens, 'deploy-bot', 'full')
  read = (await createAdminToken(adminTokens, 'dashboards', 'read')).secret
})

afterAll(() => gateway?.stop())

const store = () => gateway.gateway.services.store

async function call(token: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${gateway.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return { status: response.status, body: (await response.json()) as any }
}

/** The one row a change through the admin API left, after checking its answer. */
async function onlyRow(status: number, method: string, path: string, body?: unknown) {
  const rows = await auditRowsOf(store(), async () => expect((await call(full.secret, method, path, body)).status).toBe(status))
  expect(rows).toHaveLength(1)
  return rows[0]!
}

const byToken = () => ({ kind: 'admin-token', id: full.record.id, label: 'admin-token:deploy-bot', address })

describe('each change through the admin API is one audit row naming the token', () => {
  test('accounts, money and keys', async () => {
    const opened = await onlyRow(201, 'POST', '/admin/api/accounts', { name: 'robot-co' })
    const id = Number(opened.objectId)
    expect(opened).toMatchObject({
      action: 'account.create',
      accountId: id,
      actor: byToken(),
      before: null,
      after: { name: 'robot-co', balance_usd: '0.00' },
    })
    expect(await onlyRow(201, 'POST', `/admin/api/accounts/${id}/credits`, { amount_usd: '12.5', note: 'invoice 42' })).toMatchObject({
      action: 'account.credit',
      actor: byToken(),
      before: { balance_usd: '0.00' },
      after: { balance_usd: '12.50', amount_usd: '12.50', note: 'invoice 42' },
    })
    const made = await onlyRow(201, 'POST', '/admin/api/keys', { account_id: id, name: 'ci', models: ['mock-1'] })
    expect(made).toMatchObject({ action: 'key.create', accountId: id, actor: byToken(), after: { name: 'ci', models: ['mock-1'] } })
    const keyId = made.objectId!
    expect(await onlyRow(200, 'PATCH', `/admin/api/keys/${keyId}`, { models: null, expires_at: '2031-01-01T00:00:00Z' })).toMatchObject({
      action: 'key.edit',
      actor: byToken(),
      before: { models: ['mock-1'], expires_at: null },
      after: { models: null, expires_at: '2031-01-01T00:00:00.000Z' },
    })
    expect(await onlyRow(200, 'POST', `/admin/api/keys/${keyId}/rotate`)).toMatchObject({
      action: 'key.rotate',
      actor: byToken(),
      after: { secret: 'rotated' },
    })
    expect(await onlyRow(200, 'POST', `/admin/api/keys/${keyId}/revoke`)).toMatchObject({ action: 'key.revoke', actor: byToken() })
  })

  test('a read token changes nothing and so records nothing', async () => {
    expect(
      await auditRowsOf(store(), async () => expect((await call(read, 'POST', '/admin/api/accounts', { name: 'nope' })).status).toBe(403)),
    ).toEqual([])
  })
})

describe("a batch cancelled by its key's holder through a vendor API is one row naming the key", () => {
  const lines = (count: number) =>
    Array.from({ length: count }, (_, index) =>
      JSON.stringify({
        custom_id: `item-${index}`,
        method: 'POST',
        url: '/v1/chat/completions',
        body: { model: 'mock-1', messages: [{ role: 'user', content: 'tell me a long story about rivers' }] },
      }),
    ).join('\n')

  test('OpenAI: POST /v1/batches/{id}/cancel', async () => {
    const client = new OpenAI({ baseURL: gateway.baseUrl, apiKey: gateway.key, maxRetries: 0 })
    const file = await client.files.create({ file: await toFile(Buffer.from(lines(40)), 'input.jsonl'), purpose: 'batch' })
    const batch = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' })
    const rows = await auditRowsOf(store(), () => client.batches.cancel(batch.id))
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({
      action: 'task.cancel',
      objectType: 'task',
      objectId: batch.id,
      accountId: gateway.account.id,
      actor: { kind: 'key', id: gateway.keyRecord.id, label: `key:${gateway.keyRecord.id}`, address },
      before: { status: expect.stringMatching(/^(queued|in_progress)$/) },
      after: { status: 'cancelling' },
    })
    // Cancelling it again changes nothing and records nothing.
    expect(await auditRowsOf(store(), () => client.batches.cancel(batch.id))).toEqual([])
  })

  test('Anthropic: POST /v1/messages/batches/{id}/cancel', async () => {
    const client = new Anthropic({ baseURL: gateway.url, apiKey: gateway.key, maxRetries: 0 })
    const requests = Array.from({ length: 40 }, (_, index) => ({
      custom_id: `item-${index}`,
      params: { model: 'mock-1', max_tokens: 64, messages: [{ role: 'user' as const, content: 'a long story' }] },
    }))
    const batch = await client.messages.batches.create({ requests })
    const rows = await auditRowsOf(store(), () => client.messages.batches.cancel(batch.id))
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({
      action: 'task.cancel',
      objectId: batch.id,
      actor: { kind: 'key', id: gateway.keyRecord.id, address },
      after: { status: 'cancelling' },
    })
  })
})

describe('reading the audit log through the admin API', () => {
  test("a full token pages through it with the console's filters; a read token is refused", async () => {
    const page = await call(full.secret, 'GET', '/admin/api/audit?actor=admin-token:deploy-bot&object_type=key&limit=3')
    expect(page.status).toBe(200)
    expect(page.body.entries.map((entry: { action: string }) => entry.action)).toEqual(['key.revoke', 'key.rotate', 'key.edit'])
    const older = await call(
      full.secret,
      'GET',
      `/admin/api/audit?actor=admin-token:deploy-bot&object_type=key&limit=3&before=${page.body.next}`,
    )
    expect(older.body).toMatchObject({ entries: [{ action: 'key.create' }], next: null })
    // By the actor's id as well as its name.
    expect((await call(full.secret, 'GET', `/admin/api/audit?actor=${full.record.id}&limit=200`)).body.entries).toHaveLength(6)
    expect((await call(read, 'GET', '/admin/api/audit')).status).toBe(403)
  })
})
