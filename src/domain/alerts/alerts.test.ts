import { afterEach, beforeEach, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openSqliteStore } from '../../db/sqlite/store.ts'
import type { Store } from '../repositories.ts'
import { Alerts } from './alerts.ts'
import { reachedPercents } from './payloads.ts'
import type { WebhookRecord } from './records.ts'

/** What decides an alert, in memory: thresholds as integers, a project's webhook hearing only its project, once each. */
let store: Store
let alerts: Alerts
let accountId: number
const now = Date.parse('2030-01-01T00:00:00Z')

const webhookOf = (id: string, projectId: string | null, percents: number[]): WebhookRecord => ({
  id,
  accountId,
  projectId,
  url: `https://hooks.example.com/${id}`,
  secret: `whsec_${id}`,
  events: ['budget.threshold'],
  balanceBelow: null,
  expiryDays: 7,
  budgetPercents: percents,
  createdAt: now,
  updatedAt: now,
})

beforeEach(async () => {
  store = openSqliteStore(join(mkdtempSync(join(tmpdir(), 'alerts-')), 'alerts.db'))
  await store.migrate()
  accountId = (await store.accounts.create('acme', now)).id
  alerts = new Alerts({ repository: store.webhooks, clock: () => now })
})
afterEach(() => store.close())

test('a percentage is reached at exactly its share of the limit, in integers', () => {
  expect(reachedPercents([50, 80, 100], 7_999_999_999, 10_000_000_000)).toEqual([50])
  expect(reachedPercents([50, 80, 100], 8_000_000_000, 10_000_000_000)).toEqual([50, 80])
  expect(reachedPercents([50, 80, 100], 12_000_000_000, 10_000_000_000)).toEqual([50, 80, 100])
  expect(reachedPercents([50], 1, 0)).toEqual([])
})

test("an account's webhook hears of every budget of the account; a project's only of its project's", async () => {
  await store.webhooks.insert(webhookOf('wh_account', null, [50]))
  await store.webhooks.insert(webhookOf('wh_team', 'prj_team', [50]))
  expect(alerts.watchesBudgets(accountId)).toBe(false) // not read yet
  await alerts.refresh()
  expect(alerts.watchesBudgets(accountId)).toBe(true)
  expect(alerts.watchesBudgets(accountId + 1)).toBe(false)
  for (const projectId of ['prj_team', 'prj_other', null]) {
    alerts.spendObserved({
      scope: { kind: projectId ? 'project' : 'account', accountId, projectId },
      budgetId: 7,
      periodStart: now,
      spent: 60,
      limit: 100,
    })
    alerts.spendObserved({
      scope: { kind: projectId ? 'project' : 'account', accountId, projectId },
      budgetId: 7,
      periodStart: now,
      spent: 70,
      limit: 100,
    })
  }
  await alerts.settled()
  const stored = await store.webhooks.listDeliveries({ accountId }, 10)
  // Budget 7's 50 % once for the account's webhook (however many scopes reported it), once for the team's.
  expect(stored.map((row) => [row.webhookId, row.dedupeKey]).sort()).toEqual([
    ['wh_account', `budget.threshold:7:${now}:50`],
    ['wh_team', `budget.threshold:7:${now}:50`],
  ])
  expect(JSON.parse(stored[0]!.payload).data).toMatchObject({ budget_id: '7', percent: 50 })
})
