import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createAccount } from '../src/domain/accounts.ts'
import { createKey } from '../src/domain/keys.ts'
import type { BudgetRecord } from '../src/domain/records.ts'
import type { Store } from '../src/domain/repositories.ts'
import { storeBackends } from './support/stores.ts'
import { bill } from './support/usage-records.ts'

/**
 * The budget arithmetic of the ledger's storage, with the clock injected (each reservation's `at`), on SQLite and
 * PostgreSQL alike: a day in New York across its spring-forward change, a bill written after the boundary, a fixed
 * window opened by its first request, and holds a crash left given back to their periods.
 */
const at = (iso: string) => Date.parse(iso)

for (const [name, prepare] of storeBackends) {
  describe(`budget periods in the ledger: ${name}`, () => {
    let backend: Awaited<ReturnType<typeof prepare>>
    let store: Store
    let accountId: number
    let keyId: string
    const newBudget = (period: string, amount: number, timeZone = 'UTC'): Promise<BudgetRecord> =>
      store.budgets.createBudget({
        accountId,
        scope: 'account',
        projectId: null,
        keyId: null,
        amount,
        period,
        timeZone,
        createdAt: 1,
        updatedAt: 1,
      })
    let leases = 0
    const reserve = (budgetIds: number[], need: number, time: number, periods?: string, leaseId = `lease_${++leases}`) =>
      store.ledger
        .reserve({ leaseId, accountId, keyId, need, want: need, at: time, budgetIds, periods })
        .then((result) => ({ leaseId, ...result }))

    beforeAll(async () => {
      backend = await prepare()
      store = backend.open()
      await store.migrate()
      await store.ledger.startServing(0)
      accountId = (await createAccount(store.accounts, `budget-${name}`, 1_000_000, 'test')).id
      keyId = (await createKey(store.keys, { accountId })).record.id
    })

    afterAll(async () => {
      await store.close()
      await backend.cleanup()
    })

    test('a New York day across spring-forward: spend starts at zero at local midnight; a late bill lands in its own period', async () => {
      const budget = await newBudget('day', 1000, 'America/New_York')
      const saturday = at('2024-03-10T04:30:00Z') // 23:30 on Saturday 9 March, EST
      const first = await reserve([budget.id], 600, saturday)
      expect(first).toMatchObject({
        granted: 600,
        periods: `${budget.id}:${at('2024-03-09T05:00:00Z')}`,
        validUntil: at('2024-03-10T05:00:00Z'),
      })
      expect(await reserve([budget.id], 500, saturday + 1)).toMatchObject({
        granted: 0,
        short: 'budget',
        budgetId: budget.id,
        resetsAt: at('2024-03-10T05:00:00Z'),
      })

      const sunday = at('2024-03-10T05:00:00Z') // local midnight: Sunday has 23 hours
      const second = await reserve([budget.id], 500, sunday)
      expect(second).toMatchObject({ granted: 500, periods: `${budget.id}:${sunday}`, validUntil: at('2024-03-11T04:00:00Z') })
      // The first lease may not grow in a period that is over: the ledger makes a new one.
      expect(await reserve([budget.id], 1, sunday, first.periods, first.leaseId)).toMatchObject({ granted: 0, short: 'period' })

      // Saturday's request is billed after midnight: Saturday's period pays, Sunday's is untouched.
      await store.ledger.write([
        { kind: 'settle', leaseId: first.leaseId, usage: bill(accountId, keyId, 550), budgetPeriods: first.periods },
      ])
      await store.ledger.write([{ kind: 'release', leaseId: first.leaseId, accountId, amount: 50, budgetPeriods: first.periods }])
      expect(await store.budgets.periodFigures(budget.id, at('2024-03-09T05:00:00Z'))).toEqual({ spent: 550, reserved: 0 })
      expect(await store.budgets.periodFigures(budget.id, sunday)).toEqual({ spent: 0, reserved: 500 })
      await store.ledger.write([{ kind: 'release', leaseId: second.leaseId, accountId, amount: 500, budgetPeriods: second.periods }])
      expect(await store.budgets.periodFigures(budget.id, sunday)).toEqual({ spent: 0, reserved: 0 })
      await store.budgets.deleteBudget(budget.id, sunday)
    })

    test('a Berlin month, a week starting Monday in Tokyo and total: each reservation names every period it counts in', async () => {
      const month = await newBudget('month', 10_000, 'Europe/Berlin')
      const week = await newBudget('week', 10_000, 'Asia/Tokyo')
      const total = await newBudget('total', 700)
      const time = at('2024-10-31T23:30:00Z') // already 1 November in Berlin (CET), a Friday in Tokyo
      const lease = await reserve([month.id, week.id, total.id], 300, time)
      expect(lease.periods).toBe(`${month.id}:${at('2024-10-31T23:00:00Z')},${week.id}:${at('2024-10-27T15:00:00Z')},${total.id}:0`)
      expect(lease.validUntil).toBe(at('2024-11-03T15:00:00Z')) // the Tokyo week ends first
      // total never resets: the next one is refused by it, with no reset time.
      expect(await reserve([month.id, week.id, total.id], 500, time)).toMatchObject({
        short: 'budget',
        budgetId: total.id,
        resetsAt: undefined,
      })
      await store.ledger.write([{ kind: 'release', leaseId: lease.leaseId, accountId, amount: 300, budgetPeriods: lease.periods }])
      for (const budget of [month, week, total]) await store.budgets.deleteBudget(budget.id, time)
    })

    test('a 5h window opens with its first request, not on a boundary, and the next one opens only once it has ended', async () => {
      const window = await newBudget('5h', 1000)
      const opened = at('2024-06-01T10:17:23.456Z')
      const first = await reserve([window.id], 1000, opened)
      expect(first).toMatchObject({ granted: 1000, periods: `${window.id}:${opened}`, validUntil: opened + 5 * 3_600_000 })
      expect(await reserve([window.id], 1, opened + 5 * 3_600_000 - 1)).toMatchObject({ short: 'budget', resetsAt: opened + 5 * 3_600_000 })
      await store.ledger.write([
        { kind: 'settle', leaseId: first.leaseId, usage: bill(accountId, keyId, 1000), budgetPeriods: first.periods },
      ])
      const later = at('2024-06-02T08:00:00Z') // idle since: the next window starts now
      const second = await reserve([window.id], 10, later)
      expect(second).toMatchObject({ granted: 10, periods: `${window.id}:${later}`, validUntil: later + 5 * 3_600_000 })
      expect(await store.budgets.latestPeriodStart(window.id)).toBe(later)
      expect(await store.budgets.periodFigures(window.id, opened)).toEqual({ spent: 1000, reserved: 0 })
      await store.ledger.write([{ kind: 'release', leaseId: second.leaseId, accountId, amount: 10, budgetPeriods: second.periods }])
    })

    test('holds a crash left go back to their budget periods at the next start', async () => {
      const budget = await newBudget('week', 1000)
      const now = Date.now()
      const held = await reserve([budget.id], 400, now)
      const start = Number(held.periods!.split(':')[1])
      expect(await store.budgets.periodFigures(budget.id, start)).toEqual({ spent: 0, reserved: 400 })
      await backend.silence()
      const next = backend.open()
      try {
        expect(await next.ledger.startServing(now + 1)).toBeGreaterThan(0)
        expect(await next.budgets.periodFigures(budget.id, start)).toEqual({ spent: 0, reserved: 0 })
        expect((await next.accounts.findById(accountId))!.reserved).toBe(0)
      } finally {
        await next.close()
      }
    })
  })
}
