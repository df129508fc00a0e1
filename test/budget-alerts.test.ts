import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseUsd } from '../src/core/money.ts'
import { openSqliteStore } from '../src/db/sqlite/store.ts'
import { systemActor } from '../src/domain/actor.ts'
import { exactChat, exactModel, projectWithBudget } from './support/budgets.ts'
import { pollUntil } from './support/poll.ts'
import { mockConfig, startTestGateway, type TestGateway } from './support/gateway.ts'
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.ts'

// Budgets feed the budget.threshold alerts: real requests spend a real project budget, a receiver on loopback hears
// 50 %, 80 % and 100 % of it once each, signed, with the budget's own period and figures.
let gateway: TestGateway
let receiver: WebhookReceiver

beforeAll(async () => {
  gateway = await startTestGateway({
    config: {
      ...mockConfig,
      models: [...mockConfig.models, exactModel],
      webhooks: { allow_private_addresses: true, first_retry_ms: 50, poll_ms: 50 },
    },
  })
  receiver = startWebhookReceiver()
})

afterAll(async () => {
  await gateway.stop()
  await receiver.stop()
})

test('six requests against a project budget covering five: its thresholds are sent once each, naming the budget and its period', async () => {
  const { alerting } = gateway.gateway.services
  const { secret: signing } = await alerting.webhooks.create(
    { accountId: gateway.account.id, url: receiver.url, events: ['budget.threshold'] },
    systemActor('test'),
  )
  receiver.expectSecret(signing)
  const { project, budget } = await projectWithBudget(gateway.gateway, gateway.account.id, 'alerted', {
    amount: parseUsd('0.015'),
    period: 'week',
  })
  const { secret } = await gateway.createKey({ projectId: project.id })
  for (let index = 0; index < 6; index++) await (await exactChat(gateway.url, secret)).text()
  await gateway.settled()
  const told = await pollUntil(
    async () => receiver.received.filter((delivery) => delivery.body.type === 'budget.threshold'),
    (found) => found.length >= 3,
  )
  await Bun.sleep(300) // and nothing more
  expect(receiver.received.filter((delivery) => delivery.body.type === 'budget.threshold').length).toBe(3)
  expect(told.map((delivery) => delivery.body.data.percent).sort((a: number, b: number) => a - b)).toEqual([50, 80, 100])
  const monday = new Date()
  monday.setUTCHours(0, 0, 0, 0)
  monday.setUTCDate(monday.getUTCDate() - ((monday.getUTCDay() + 6) % 7))
  for (const delivery of told) {
    expect(delivery.valid).toBe(true)
    expect(delivery.body.data).toMatchObject({
      scope: 'project',
      project_id: String(project.id),
      budget_id: String(budget.id),
      limit_usd: '0.015',
      period_start: monday.toISOString(),
    })
  }
})

test('a threshold the last bills reached is still stored when the gateway stops', async () => {
  const databasePath = join(mkdtempSync(join(tmpdir(), 'budget-alerts-stop-')), 'tollgate.db')
  const stopping = await startTestGateway({
    databasePath,
    config: { ...mockConfig, models: [...mockConfig.models, exactModel], webhooks: { allow_private_addresses: true } },
  })
  await stopping.gateway.services.alerting.webhooks.create(
    { accountId: stopping.account.id, url: 'https://hooks.example.com/late', events: ['budget.threshold'], budgetPercents: [10] },
    systemActor('test'),
  )
  const { project } = await projectWithBudget(stopping.gateway, stopping.account.id, 'late', { amount: parseUsd('0.015'), period: 'week' })
  const { secret } = await stopping.createKey({ projectId: project.id })
  await (await exactChat(stopping.url, secret)).text()
  await stopping.gateway.stop(1000)
  const store = openSqliteStore(databasePath)
  const deliveries = await store.webhooks.listDeliveries({ accountId: stopping.account.id }, 5)
  expect(deliveries.map((delivery) => [delivery.event, JSON.parse(delivery.payload).data.percent])).toEqual([['budget.threshold', 10]])
  await store.close()
})
