import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { cliActor } from '../src/domain/actor.ts'
import { createAccount, creditAccount } from '../src/domain/accounts.ts'
import { auditChange } from '../src/domain/audit/note.ts'
import { webhookObject } from '../src/domain/audit/objects.ts'
import type { NewDelivery, WebhookRecord } from '../src/domain/alerts/records.ts'
import type { Store } from '../src/domain/repositories.ts'
import { storeBackends, type StoreBackend } from './support/stores.ts'

/** Webhooks and deliveries on both databases: the same answers, the once-only key, and claims that one owner holds. */
const actor = cliActor('ops')

for (const [name, open] of storeBackends) {
  describe(`webhook store on ${name}`, () => {
    let backend: StoreBackend
    let store: Store
    let accountId: number
    let webhook: WebhookRecord

    beforeAll(async () => {
      backend = await open()
      store = backend.open()
      await store.migrate()
      accountId = (await createAccount(store.accounts, 'acme', 5_000_000_000, actor)).id
      webhook = {
        id: 'wh_store',
        accountId,
        projectId: null,
        url: 'https://hooks.example.com/x',
        secret: 'whsec_store',
        events: ['balance.below', 'budget.threshold'],
        balanceBelow: 1_000_000_000,
        expiryDays: 7,
        budgetPercents: [50, 100],
        createdAt: 1000,
        updatedAt: 1000,
      }
      await store.webhooks.insert(webhook, auditChange(actor, 'webhook.create', webhookObject, { at: 1000 }))
    }, 30_000)
    afterAll(async () => {
      await store?.close()
      await backend?.cleanup()
    })

    const delivery = (id: string, dedupeKey: string, createdAt = 2000): NewDelivery => ({
      id,
      webhookId: webhook.id,
      accountId,
      event: 'budget.threshold',
      dedupeKey,
      payload: `{"id":"${id}"}`,
      createdAt,
    })

    test('a webhook reads back as stored, with one audit row that holds no secret', async () => {
      expect(await store.webhooks.findById(webhook.id)).toEqual(webhook)
      expect(await store.webhooks.list(accountId)).toEqual([webhook])
      const [row] = await store.audit.list({ objectType: 'webhook' }, 10)
      expect(row).toMatchObject({
        action: 'webhook.create',
        objectId: webhook.id,
        accountId,
        after: { url: webhook.url, balance_below_usd: '1.00' },
      })
      expect(JSON.stringify(row)).not.toContain(webhook.secret)
    })

    test('an alert is stored once per (webhook, dedupe key), however often it is offered', async () => {
      expect(await store.webhooks.enqueue([delivery('whd_a', 'k:1'), delivery('whd_b', 'k:1'), delivery('whd_c', 'k:2')])).toBe(2)
      expect(await store.webhooks.enqueue([delivery('whd_d', 'k:2')])).toBe(0)
      const stored = await store.webhooks.listDeliveries({ webhookId: webhook.id }, 10)
      expect(stored.map((row) => [row.id, row.status, row.attempts]).sort()).toEqual([
        ['whd_a', 'pending', 0],
        ['whd_c', 'pending', 0],
      ])
    })

    test('a due delivery is claimed by one owner until its claim runs out; only the owner records its attempt', async () => {
      const claimed = await store.webhooks.claimDue('one', 3000, 10_000, 10)
      expect(claimed.map((row) => row.id).sort()).toEqual(['whd_a', 'whd_c'])
      expect(await store.webhooks.claimDue('two', 3000, 10_000, 10)).toEqual([])
      const outcome = {
        status: 'pending' as const,
        at: 3100,
        firstAttemptAt: 3000,
        nextAttemptAt: 50_000,
        lastStatus: 503,
        lastError: 'the receiver answered 503',
      }
      expect(await store.webhooks.finishAttempt('whd_a', 'two', outcome)).toBe(false)
      expect(await store.webhooks.finishAttempt('whd_a', 'one', outcome)).toBe(true)
      // whd_c's owner died: its claim runs out and another takes it; whd_a is not due before its next attempt.
      expect((await store.webhooks.claimDue('two', 10_001, 60_000, 10)).map((row) => row.id)).toEqual(['whd_c'])
      expect((await store.webhooks.claimDue('two', 50_000, 60_000, 10)).map((row) => row.id)).toEqual(['whd_a'])
      expect(
        await store.webhooks.finishAttempt('whd_a', 'two', {
          ...outcome,
          status: 'delivered',
          at: 50_100,
          lastStatus: 204,
          lastError: null,
        }),
      ).toBe(true)
      const [row] = await store.webhooks.listDeliveries({ webhookId: webhook.id, status: 'delivered' }, 10)
      expect(row).toMatchObject({
        id: 'whd_a',
        attempts: 2,
        firstAttemptAt: 3000,
        lastAttemptAt: 50_100,
        deliveredAt: 50_100,
        lastStatus: 204,
        lastError: null,
      })
    })

    test('the balance and the latest credit are read together; a credit is a new occasion', async () => {
      const before = (await store.webhooks.balanceOf(accountId))!
      expect(before.balance).toBe(5_000_000_000)
      await creditAccount(store.accounts, 'acme', 1_000_000, 'top-up', actor)
      const after = (await store.webhooks.balanceOf(accountId))!
      expect(after).toEqual({ balance: 5_001_000_000, lastCreditId: expect.any(Number) })
      expect(after.lastCreditId).toBeGreaterThan(before.lastCreditId)
      expect(await store.webhooks.balanceOf(999_999)).toBeUndefined()
    })

    test('deleting a webhook takes its deliveries, with one audit row', async () => {
      expect(await store.webhooks.delete(webhook.id, auditChange(actor, 'webhook.delete', webhookObject, { at: 4000 }))).toBe(true)
      expect(await store.webhooks.delete(webhook.id)).toBe(false)
      expect(await store.webhooks.listDeliveries({ accountId }, 10)).toEqual([])
      expect((await store.audit.list({ objectType: 'webhook' }, 10)).map((row) => row.action)).toEqual(['webhook.delete', 'webhook.create'])
    })
  })
}
