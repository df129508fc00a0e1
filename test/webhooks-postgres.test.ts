import { afterAll, beforeAll, expect, test } from 'bun:test'
import { parseConfig } from '../src/config/load.ts'
import { silentLogger } from '../src/core/logger.ts'
import { systemActor } from '../src/domain/actor.ts'
import { type Gateway, startGateway } from '../src/gateway.ts'
import { pollUntil } from './support/poll.ts'
import { createTestDatabase } from './support/postgres.ts'
import { mockConfig, startTestGateway, type TestGateway } from './support/gateway.ts'
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.ts'

/**
 * Two instances on one PostgreSQL database, both noticing the same thresholds and both delivering: each alert is
 * stored once (the unique dedupe key) and sent once (claims with SKIP LOCKED), though the receiver is slow enough that
 * both instances poll while the other's attempts are in flight.
 */
let database: Awaited<ReturnType<typeof createTestDatabase>>
let first: TestGateway
let second: Gateway
let receiver: WebhookReceiver

beforeAll(async () => {
  database = await createTestDatabase()
  const config = { ...mockConfig, webhooks: { allow_private_addresses: true, poll_ms: 20 } }
  first = await startTestGateway({ database: database.url, config })
  second = await startGateway(
    parseConfig({ ...config, listen: { host: '127.0.0.1', port: 0 }, database: database.url }, 'test'),
    silentLogger,
  )
  receiver = startWebhookReceiver({ delayMs: 150 })
}, 30_000)
afterAll(async () => {
  await first?.stop()
  await second?.stop()
  await receiver?.stop()
  await database?.drop()
})

test('every threshold noticed by both instances is delivered exactly once', async () => {
  const { secret } = await first.gateway.services.alerting.webhooks.create(
    { accountId: first.account.id, url: receiver.url, events: ['budget.threshold'] },
    systemActor('test'),
  )
  receiver.expectSecret(secret)
  await second.services.alerting.alerts.refresh() // at once, rather than at its next read of the webhooks
  const scope = { kind: 'key' as const, accountId: first.account.id, keyId: first.keyRecord.id }
  for (let budget = 0; budget < 20; budget++) {
    for (const instance of [first.gateway, second]) {
      instance.services.alerting.alerts.spendObserved({ scope, budgetId: `bud_${budget}`, periodStart: 0, spent: 100, limit: 100 })
    }
  }
  await pollUntil(
    async () => receiver.received.length,
    (count) => count >= 60,
  )
  await Bun.sleep(500) // time for any double delivery to arrive
  const occasions = receiver.received.map((delivery) => `${delivery.body.data.budget_id}:${delivery.body.data.percent}`)
  expect(occasions).toHaveLength(60)
  expect(new Set(occasions).size).toBe(60)
  expect(new Set(receiver.received.map((delivery) => delivery.body.id)).size).toBe(60)
  expect(receiver.received.every((delivery) => delivery.valid)).toBe(true)
  const stored = await first.gateway.services.store.webhooks.listDeliveries({ accountId: first.account.id }, 100)
  expect(stored.map((delivery) => [delivery.status, delivery.attempts])).toEqual(new Array(60).fill(['delivered', 1]))
}, 30_000)
