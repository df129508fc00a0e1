import { afterEach, beforeEach, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openSqliteStore } from '../../db/sqlite/store.ts'
import { verifyWebhook } from '../../core/webhook-signature.ts'
import type { Store } from '../repositories.ts'
import { Alerts } from './alerts.ts'
import { Deliverer, type WebhookSend } from './deliverer.ts'
import type { WebhookRecord } from './records.ts'

/** The deliverer on an injected clock: a receiver that never answers is tried with backoff for a day, then given up. */
let store: Store
let now: number
let webhook: WebhookRecord

beforeEach(async () => {
  store = openSqliteStore(join(mkdtempSync(join(tmpdir(), 'deliverer-')), 'alerts.db'))
  await store.migrate()
  now = Date.parse('2030-01-01T00:00:00Z')
  const account = await store.accounts.create('acme', now)
  webhook = {
    id: 'wh_clock',
    accountId: account.id,
    projectId: null,
    url: 'https://hooks.example.com/x',
    secret: 'whsec_clock',
    events: ['budget.threshold'],
    balanceBelow: null,
    expiryDays: 7,
    budgetPercents: [100],
    createdAt: now,
    updatedAt: now,
  }
  await store.webhooks.insert(webhook)
})
afterEach(() => store.close())

function deliverer(send: WebhookSend) {
  return new Deliverer({
    repository: store.webhooks,
    send,
    owner: 'test',
    pollMs: 1000,
    timeoutMs: 1000,
    clock: () => now,
    random: () => 1,
  })
}

async function alertOnce(): Promise<void> {
  const alerts = new Alerts({ repository: store.webhooks, clock: () => now })
  await alerts.refresh()
  alerts.spendObserved({ scope: { kind: 'account', accountId: webhook.accountId }, budgetId: 'bud', periodStart: 0, spent: 5, limit: 5 })
  await alerts.settled()
}

test('a receiver that is down is tried with doubling waits, at most an hour apart, until a day has passed; then the delivery is failed', async () => {
  await alertOnce()
  const attempts: number[] = []
  const down = deliverer(async ({ headers, body }) => {
    attempts.push(now)
    // Each attempt is signed at its own time: the receiver's replay window holds for a retry a day later too.
    expect(verifyWebhook(headers['tollgate-signature'], body, webhook.secret, Math.floor(now / 1000)).valid).toBe(true)
    throw new Error('connect ECONNREFUSED')
  })
  for (let round = 0; round < 100; round++) {
    down.wake()
    await down.idle()
    const [row] = await store.webhooks.listDeliveries({ webhookId: webhook.id }, 1)
    if (row!.status !== 'pending') break
    now = row!.nextAttemptAt
  }
  const [row] = await store.webhooks.listDeliveries({ webhookId: webhook.id }, 1)
  expect(row).toMatchObject({ status: 'failed', lastError: 'connect ECONNREFUSED', lastStatus: null, attempts: attempts.length })
  const waits = attempts.slice(1).map((at, index) => (at - attempts[index]!) / 1000)
  expect(waits.slice(0, 9)).toEqual([10, 20, 40, 80, 160, 320, 640, 1280, 2560])
  expect(waits.slice(9).every((wait) => wait === 3600)).toBe(true)
  expect(attempts.at(-1)! - attempts[0]!).toBeLessThanOrEqual(86_400_000)
  expect(attempts.at(-1)! - attempts[0]! + 3_600_000).toBeGreaterThan(86_400_000)
})

test('an answer other than 2xx is retried, Retry-After is honoured, and a 2xx ends it', async () => {
  await alertOnce()
  const answers = [{ status: 500 }, { status: 429, retryAfterMs: 120_000 }, { status: 302 }, { status: 204 }]
  const flaky = deliverer(async () => answers.shift()!)
  const seen: [string, number, number | null][] = []
  for (let round = 0; round < 4; round++) {
    flaky.wake()
    await flaky.idle()
    const [row] = await store.webhooks.listDeliveries({ webhookId: webhook.id }, 1)
    seen.push([row!.status, (row!.nextAttemptAt - now) / 1000, row!.lastStatus])
    now = row!.nextAttemptAt
  }
  expect(seen).toEqual([
    ['pending', 10, 500],
    ['pending', 120, 429],
    ['pending', 40, 302],
    ['delivered', 0, 204],
  ])
})

test('a receiver that hangs holds only its own delivery: an alert that comes after it is sent meanwhile', async () => {
  const other = { ...webhook, id: 'wh_other', url: 'https://other.example.com/x' }
  await store.webhooks.insert(other)
  let release = () => {}
  const sent: string[] = []
  const mixed = deliverer(async ({ url }) => {
    sent.push(url)
    if (url === webhook.url) await new Promise<void>((resolve) => (release = resolve))
    return { status: 204 }
  })
  const offer = (target: WebhookRecord, id: string) =>
    store.webhooks.enqueue([
      { id, webhookId: target.id, accountId: target.accountId, event: 'budget.threshold', dedupeKey: id, payload: '{}', createdAt: now },
    ])
  await offer(webhook, 'whd_slow')
  mixed.wake()
  while (sent.length === 0) await Bun.sleep(1)
  await offer(other, 'whd_next')
  mixed.wake()
  const deadline = Date.now() + 5000
  while ((await store.webhooks.listDeliveries({ status: 'delivered' }, 5)).length === 0 && Date.now() < deadline) await Bun.sleep(5)
  expect((await store.webhooks.listDeliveries({}, 5)).map((row) => [row.id, row.status]).sort()).toEqual([
    ['whd_next', 'delivered'],
    ['whd_slow', 'pending'],
  ])
  release()
  await mixed.idle()
  expect((await store.webhooks.listDeliveries({ status: 'delivered' }, 5)).map((row) => row.id).sort()).toEqual(['whd_next', 'whd_slow'])
})
