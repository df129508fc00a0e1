import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import OpenAI from 'openai'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openSqliteStore } from '../src/db/sqlite/store.ts'
import { systemActor } from '../src/domain/actor.ts'
import { createAdminToken } from '../src/domain/admin-tokens.ts'
import { pollUntil } from './support/poll.ts'
import { mockConfig, startTestGateway, type TestGateway } from './support/gateway.ts'
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.ts'

/**
 * Alerts end to end: a real gateway, a real receiver on loopback (allowed by the operator's setting), the admin API
 * to make webhooks, and the OpenAI SDK spending money.
 */
let gateway: TestGateway
let token: string
let receiver: WebhookReceiver

const webhooksConfig = { allow_private_addresses: true, first_retry_ms: 50, poll_ms: 50, expiry_check_s: 1 }

beforeAll(async () => {
  gateway = await startTestGateway({ balanceUsd: '1', config: { ...mockConfig, webhooks: webhooksConfig } })
  token = (await createAdminToken(gateway.gateway.services.store.adminTokens, 'alerts', 'full')).secret
  receiver = startWebhookReceiver()
})
afterAll(async () => {
  await gateway.stop()
  await receiver.stop()
})

const admin = async (method: string, path: string, body?: unknown) => {
  const response = await fetch(`${gateway.url}/admin/api${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return { status: response.status, body: (await response.json()) as any }
}

async function makeWebhook(fields: Record<string, unknown>, accountId = gateway.account.id) {
  const made = await admin('POST', '/webhooks', { account_id: accountId, url: receiver.url, ...fields })
  expect(made.status).toBe(201)
  receiver.expectSecret(made.body.secret)
  return made.body as { webhook: { id: string }; secret: string }
}

const ofType = (type: string) => receiver.received.filter((delivery) => delivery.body.type === type)

describe('webhooks', () => {
  test('a threshold of a budget is sent once per period, each with a valid signature, whoever reports it how often', async () => {
    const { webhook, secret } = await makeWebhook({ events: ['budget.threshold'] })
    expect(secret).toStartWith('whsec_')
    const { alerts } = gateway.gateway.services.alerting
    const scope = { kind: 'project' as const, accountId: gateway.account.id, projectId: 'prj_team' }
    const periodStart = Date.parse('2026-11-01T00:00:00Z')
    // Spend reported after each settlement, in nano-dollars, as the budgets feature does: 40 %, 55 %, 85 %, 85 %, 100 %, 130 %.
    for (const spent of [4, 5.5, 8.5, 8.5, 10, 13])
      alerts.spendObserved({ scope, budgetId: 'bud_1', periodStart, spent: spent * 1e9, limit: 10e9 })
    // The next period starts again from nothing.
    alerts.spendObserved({ scope, budgetId: 'bud_1', periodStart: periodStart + 30 * 86_400_000, spent: 6e9, limit: 10e9 })
    const sent = await pollUntil(
      async () => ofType('budget.threshold'),
      (found) => found.length >= 4,
    )
    await Bun.sleep(200) // nothing more comes
    // Sent side by side: in any order, each once.
    const told = ofType('budget.threshold').map((delivery) => [delivery.body.data.percent, delivery.body.data.period_start])
    expect(told.sort((left, right) => left[1].localeCompare(right[1]) || left[0] - right[0])).toEqual([
      [50, '2026-11-01T00:00:00.000Z'],
      [80, '2026-11-01T00:00:00.000Z'],
      [100, '2026-11-01T00:00:00.000Z'],
      [50, '2026-12-01T00:00:00.000Z'],
    ])
    for (const delivery of sent) {
      expect(delivery.valid).toBe(true)
      expect(delivery.headers.get('tollgate-signature')).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/)
      expect(delivery.headers.get('tollgate-delivery')).toBe(delivery.body.id)
      expect(delivery.body).toMatchObject({
        type: 'budget.threshold',
        account_id: gateway.account.id,
        data: { scope: 'project', project_id: 'prj_team', limit_usd: '10.00' },
      })
    }
    const deliveries = await admin('GET', `/webhooks/${webhook.id}/deliveries`)
    expect(deliveries.body.map((row: any) => [row.status, row.attempts])).toEqual([
      ['delivered', 1],
      ['delivered', 1],
      ['delivered', 1],
      ['delivered', 1],
    ])
    expect(await admin('DELETE', `/webhooks/${webhook.id}`)).toMatchObject({ status: 200 })
  })

  test('the balance falling below the amount is sent once, and once more after a credit', async () => {
    const account = await gateway.createAccount('low-balance', '0.0001')
    const key = await gateway.createKey({ accountId: account.id })
    await makeWebhook({ events: ['balance.below'], balance_below_usd: '0.00009' }, account.id)
    const client = new OpenAI({ baseURL: gateway.baseUrl, apiKey: key.secret, maxRetries: 0 })
    const spend = () =>
      client.chat.completions.create({ model: 'mock-fast', messages: [{ role: 'user', content: 'hello there' }], max_tokens: 20 })
    for (let index = 0; index < 5; index++) await spend()
    const first = await pollUntil(
      async () => ofType('balance.below'),
      (found) => found.length >= 1,
    )
    expect(first[0]!.valid).toBe(true)
    expect(first[0]!.body.data.threshold_usd).toBe('0.00009')
    expect(Number(first[0]!.body.data.balance_usd)).toBeLessThan(0.00009)
    for (let index = 0; index < 3; index++) await spend()
    await gateway.gateway.services.ledger.flush()
    await Bun.sleep(300)
    expect(ofType('balance.below')).toHaveLength(1)
    // A credit that leaves it still low is a new occasion: the next spend tells again.
    expect((await admin('POST', `/accounts/${account.id}/credits`, { amount_usd: '0.00001', note: 'top-up' })).status).toBe(201)
    await spend()
    await pollUntil(
      async () => ofType('balance.below'),
      (found) => found.length >= 2,
    )
  })

  test("a key about to expire is told of once, within the webhook's days", async () => {
    const account = await gateway.createAccount('expiring', '1')
    await makeWebhook({ events: ['key.expiring'], expiry_days: 3 }, account.id)
    const soon = await gateway.createKey({ accountId: account.id, name: 'soon', expiresAt: Date.now() + 2 * 86_400_000 })
    await gateway.createKey({ accountId: account.id, name: 'later', expiresAt: Date.now() + 10 * 86_400_000 })
    const told = await pollUntil(
      async () => ofType('key.expiring'),
      (found) => found.length >= 1,
    )
    await Bun.sleep(1500) // another check (expiry_check_s: 1) tells nothing new
    expect(ofType('key.expiring')).toHaveLength(1)
    expect(told[0]!.body.data).toMatchObject({ key_id: soon.record.id, key_name: 'soon', days_left: 1 })
  })

  test('a receiver that is down gets the retries, recorded with their error, until it answers', async () => {
    const down = startWebhookReceiver({ status: 503 })
    const account = await gateway.createAccount('down-receiver', '1')
    const made = await admin('POST', '/webhooks', {
      account_id: account.id,
      url: down.url,
      events: ['budget.threshold'],
      budget_percents: [90],
    })
    gateway.gateway.services.alerting.alerts.spendObserved({
      scope: { kind: 'account', accountId: account.id },
      budgetId: 'bud_down',
      periodStart: 0,
      spent: 95,
      limit: 100,
    })
    await pollUntil(
      async () => down.received.length,
      (count) => count >= 3,
    )
    // The receiver has the third attempt a moment before the deliverer records its answer: wait for the record.
    const failing = await pollUntil(
      async () => (await admin('GET', `/webhooks/${made.body.webhook.id}/deliveries`)).body[0],
      (row) => row?.attempts >= 3,
    )
    expect(failing).toMatchObject({ status: 'pending', last_status: 503, last_error: 'the receiver answered 503' })
    expect(failing.attempts).toBeGreaterThanOrEqual(3)
    expect(failing.next_attempt_at).toBeString()
    // The same body each time (its id lets a receiver drop repeats), each attempt signed afresh.
    expect(new Set(down.received.map((delivery) => delivery.raw)).size).toBe(1)
    down.setStatus(200)
    const delivered = await pollUntil(
      async () => (await admin('GET', `/webhooks/${made.body.webhook.id}/deliveries`)).body[0],
      (row) => row.status === 'delivered',
    )
    expect(delivered.attempts).toBe(down.received.length)
    await down.stop()
  })

  test('a webhook is one audit row when made and one when deleted, never with its secret', async () => {
    const { webhook, secret } = await makeWebhook({ events: ['key.expiring'] })
    await admin('DELETE', `/webhooks/${webhook.id}`)
    const rows = await gateway.gateway.services.store.audit.list({ objectId: webhook.id }, 10)
    expect(rows.map((row) => row.action)).toEqual(['webhook.delete', 'webhook.create'])
    expect(JSON.stringify(rows)).not.toContain(secret)
    expect(JSON.stringify((await admin('GET', '/webhooks')).body)).not.toContain('whsec_')
  })
})

describe('shutdown', () => {
  test('a balance the last bills took below the amount is still decided and stored when the gateway stops', async () => {
    const databasePath = join(mkdtempSync(join(tmpdir(), 'alerts-stop-')), 'tollgate.db')
    const stopping = await startTestGateway({ databasePath, balanceUsd: '1', config: { ...mockConfig, webhooks: webhooksConfig } })
    const { webhooks } = stopping.gateway.services.alerting
    await webhooks.create(
      { accountId: stopping.account.id, url: 'https://hooks.example.com/late', events: ['balance.below'], balanceBelow: 2_000_000_000 },
      systemActor('test'),
    )
    await new OpenAI({ baseURL: stopping.baseUrl, apiKey: stopping.key, maxRetries: 0 }).chat.completions.create({
      model: 'mock-1',
      messages: [{ role: 'user', content: 'hi' }],
    })
    await stopping.gateway.stop(1000)
    const store = openSqliteStore(databasePath)
    const [delivery] = await store.webhooks.listDeliveries({ accountId: stopping.account.id }, 5)
    expect(delivery).toMatchObject({ event: 'balance.below', dedupeKey: expect.stringMatching(/^balance\.below:2000000000:/) })
    await store.close()
  })
})

describe('webhook URLs', () => {
  test('loopback and private receivers are refused unless the operator allows them', async () => {
    const strict = await startTestGateway({ config: mockConfig })
    try {
      const strictToken = (await createAdminToken(strict.gateway.services.store.adminTokens, 'strict', 'full')).secret
      const make = async (url: string) => {
        const response = await fetch(`${strict.url}/admin/api/webhooks`, {
          method: 'POST',
          headers: { authorization: `Bearer ${strictToken}`, 'content-type': 'application/json' },
          body: JSON.stringify({ account_id: strict.account.id, url }),
        })
        return { status: response.status, body: (await response.json()) as any }
      }
      for (const url of [
        receiver.url,
        'http://localhost:9/x',
        'http://[::1]/x',
        'http://10.0.0.7/x',
        'http://169.254.169.254/latest',
        'http://2130706433/',
      ]) {
        const refused = await make(url)
        expect({ url, status: refused.status, field: refused.body.error.field }).toEqual({ url, status: 400, field: 'url' })
        expect(refused.body.error.message).toContain('webhooks.allow_private_addresses')
      }
      expect((await make('ftp://hooks.example.com/x')).body.error.message).toContain('must be http or https')
      expect((await make('https://hooks.example.com/tollgate')).status).toBe(201)
      expect(await strict.gateway.services.store.webhooks.list(strict.account.id)).toHaveLength(1)
    } finally {
      await strict.stop()
    }
  })
})
