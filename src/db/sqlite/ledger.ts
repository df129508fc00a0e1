import type { Database } from 'bun:sqlite'
import type { LedgerWrite } from '../../domain/records.ts'
import type { LeaseRequest, LedgerRepository, Reservation } from '../../domain/repositories.ts'
import { aggregateLedgerWrites, releasedBy, takeFromHold } from '../aggregate-ledger-writes.ts'
import { type BudgetRoom, type BudgetRow, budgetGrant, periodAt, periodChanges, periodOf, summarizeRooms } from '../budget-periods.ts'
import type { Logger } from '../../core/logger.ts'
import { HeldAmounts } from './held-amounts.ts'
import { UsageInbox } from './usage-inbox.ts'
import { prepareUsageInserts } from './usage-inserts.ts'

/**
 * The ledger's SQL, as raw prepared statements: this is the hot path, and Drizzle's query building measured
 * ~230 µs per reservation here against ~30 µs for the statement itself (bench/, 2026-11-23).
 */
export function createSqliteLedger(client: Database, logger?: Logger): LedgerRepository & { close(): void } {
  // Statements are prepared on first use: the tables may not exist until migrations have run.
  let ledger: PreparedLedger | undefined
  const prepared = () => (ledger ??= prepareLedger(client, logger))
  return {
    reserve: (lease) => prepared().reserve(lease),
    write: (batch, options) => prepared().write(batch, options),
    writeNow: (batch, options) => prepared().writeNow(batch, options),
    ping: () => prepared().ping(),
    startServing: (unownedBefore) => prepared().startServing(unownedBefore),
    close: () => ledger?.inbox.close(),
  }
}

type PreparedLedger = Required<Pick<LedgerRepository, 'writeNow'>> & LedgerRepository & { inbox: UsageInbox }

const written = Promise.resolve()

function prepareLedger(client: Database, logger: Logger | undefined): PreparedLedger {
  const available = client.prepare<{ available: number }, [number]>('SELECT balance - reserved AS available FROM accounts WHERE id = ?')
  const budgetRoom = client.prepare<{ room: number | null }, [string]>(
    'SELECT budget - spent - reserved AS room FROM api_keys WHERE id = ?',
  )
  const addReserved = client.prepare('UPDATE accounts SET reserved = reserved + ? WHERE id = ?')
  const addKeyReserved = client.prepare('UPDATE api_keys SET reserved = reserved + ? WHERE id = ?')
  const upsertHold = client.prepare(
    'INSERT INTO holds (id, account_id, key_id, amount, created_at, budget_key_id, budget_periods) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET amount = amount + excluded.amount, created_at = excluded.created_at',
  )
  const budgetRow = client.prepare<BudgetRow, [number]>('SELECT amount, period, time_zone FROM budgets WHERE id = ?')
  const latestStart = client.prepare<{ start: number | null }, [number]>(
    'SELECT max(period_start) AS start FROM budget_periods WHERE budget_id = ?',
  )
  const periodUsed = client.prepare<{ used: number }, [number, number]>(
    'SELECT spent + reserved AS used FROM budget_periods WHERE budget_id = ? AND period_start = ?',
  )
  const addPeriodReserved = client.prepare(
    'INSERT INTO budget_periods (budget_id, period_start, reserved) VALUES (?, ?, ?) ON CONFLICT(budget_id, period_start) DO UPDATE SET reserved = reserved + excluded.reserved',
  )
  const changePeriod = client.prepare(
    'UPDATE budget_periods SET spent = spent + ?, reserved = reserved - ? WHERE budget_id = ? AND period_start = ?',
  )
  const debitAccount = client.prepare('UPDATE accounts SET balance = balance - ?, reserved = reserved - ? WHERE id = ?')
  // A hold row says its lease is alive; what the lease still holds is kept in memory (held-amounts.ts), so a bill
  // writes no hold page. Its amount column sums what the lease was granted; nothing on SQLite reads it.
  const holdRow = client.prepare<{ found: number }, [string]>('SELECT 1 AS found FROM holds WHERE id = ?')
  const deleteHold = client.prepare('DELETE FROM holds WHERE id = ?')
  const amounts = new HeldAmounts()
  const chargeKey = client.prepare('UPDATE api_keys SET spent = spent + ?, last_used_at = max(coalesce(last_used_at, 0), ?) WHERE id = ?')
  const inbox = new UsageInbox(client, logger)
  const insertUsage = prepareUsageInserts(client, inbox)
  // Found through usage_account_time (account, then the very millisecond): a unique index on request_id would make
  // every insert pay ~20 µs (a random key in a growing b-tree, bench/compare.ts 2026-11-27) for the rare replay.
  const billed = client.prepare<{ found: number }, [number, number, string]>(
    'SELECT 1 AS found FROM usage_records WHERE account_id = ? AND created_at = ? AND request_id = ?',
  )
  const markBatch = client.prepare('INSERT INTO ledger_batches (id, applied_at) VALUES (?, ?) ON CONFLICT DO NOTHING')
  const pruneBatches = client.prepare('DELETE FROM ledger_batches WHERE applied_at < ?')
  const deleteAllHolds = client.prepare('DELETE FROM holds')
  const zeroAccounts = client.prepare('UPDATE accounts SET reserved = 0 WHERE reserved <> 0')
  const zeroKeys = client.prepare('UPDATE api_keys SET reserved = 0 WHERE reserved <> 0')
  const zeroPeriods = client.prepare('UPDATE budget_periods SET reserved = 0 WHERE reserved <> 0')

  /** Each scheduled budget's current period at `at` and what is left of it (a deleted budget counts no more). */
  const budgetRooms = (budgetIds: readonly number[], at: number): BudgetRoom[] =>
    budgetIds.flatMap((budgetId) => {
      const budget = budgetRow.get(budgetId)
      if (!budget) return []
      const windowStart = periodOf(budget.period).kind === 'window' ? (latestStart.get(budgetId)?.start ?? undefined) : undefined
      const period = periodAt(budget, at, windowStart)
      return [
        {
          budgetId,
          start: period.start,
          resetsAt: period.resetsAt,
          room: budget.amount - (periodUsed.get(budgetId, period.start)?.used ?? 0),
        },
      ]
    })

  const reserve = client.transaction((request: LeaseRequest): Reservation => {
    amounts.begin()
    const { leaseId, accountId, keyId, need, want, at } = request
    const budgetKeyId = request.budgetKeyId ?? null
    const free = available.get(accountId)?.available ?? 0
    if (free < need) return { granted: 0, short: 'balance' }
    // A key without a budget (NULL room) is limited by the balance alone.
    const room = budgetKeyId === null ? null : (budgetRoom.get(budgetKeyId)?.room ?? null)
    if (room !== null && room < need) return { granted: 0, short: 'budget' }
    let granted = Math.min(want, free, room ?? free)
    const rooms = request.budgetIds ? budgetRooms(request.budgetIds, at) : undefined
    const summary = rooms && summarizeRooms(rooms)
    if (summary && request.periods !== undefined && summary.periods !== request.periods) return { granted: 0, short: 'period' }
    for (const budget of rooms ?? []) {
      if (budget.room < need) return { granted: 0, short: 'budget', budgetId: budget.budgetId, resetsAt: budget.resetsAt }
      granted = Math.min(granted, budgetGrant(budget.room, need))
    }
    addReserved.run(granted, accountId)
    if (budgetKeyId !== null) addKeyReserved.run(granted, budgetKeyId)
    for (const budget of rooms ?? []) addPeriodReserved.run(budget.budgetId, budget.start, granted)
    amounts.grant(leaseId, granted, !holdRow.get(leaseId))
    upsertHold.run(leaseId, accountId, keyId, granted, at, budgetKeyId, summary?.periods ?? null)
    return { granted, ...summary }
  })

  /**
   * What a lease holds as this transaction sees it; nothing when its row is gone (another start gave its money back:
   * on SQLite only a second store on the file, as the contract tests open, can do that while this one lives).
   */
  const heldNow = (leaseId: string): number | undefined => {
    const remaining = amounts.remaining(leaseId)
    if (remaining === undefined || holdRow.get(leaseId)) return remaining
    amounts.drop(leaseId)
    return undefined
  }

  /** The money of a batch whose usage rows are written: debits, and holds shrunk as far as they still hold. */
  const applyMoney = (batch: LedgerWrite[]) => {
    const only = batch.length === 1 ? batch[0]! : undefined
    if (only?.kind === 'settle' && !only.budgetPeriods) return applyBill(only)
    const totals = aggregateLedgerWrites(batch)
    const taken = new Map<string, number>()
    for (const [leaseId, lease] of totals.leases) {
      const amount = takeFromHold(heldNow(leaseId), lease.amount)
      if (amount > 0) amounts.take(leaseId, amount)
      taken.set(leaseId, amount)
    }
    const released = releasedBy(totals, taken)
    for (const accountId of new Set([...totals.debits.keys(), ...released.accounts.keys()])) {
      debitAccount.run(totals.debits.get(accountId) ?? 0, released.accounts.get(accountId) ?? 0, accountId)
    }
    for (const leaseId of totals.releasedLeases) {
      if ((amounts.remaining(leaseId) ?? 0) > 0) continue
      deleteHold.run(leaseId)
      amounts.drop(leaseId)
    }
    for (const [keyId, key] of totals.keys) chargeKey.run(key.spent, key.lastUsedAt, keyId)
    for (const [keyId, amount] of released.budgetKeys) addKeyReserved.run(-amount, keyId)
    for (const change of periodChanges(totals, released.periods))
      changePeriod.run(change.spent, change.freed, change.budgetId, change.start)
  }

  /**
   * applyMoney's statements for a batch of one bill under no budget period, the usual batch at a moderate rate
   * (requests arriving one by one each commit alone), without the maps and sets that fold a large batch: ~15
   * objects fewer a request. A bill counted against budget periods takes applyMoney's way, periods included.
   */
  const applyBill = ({ leaseId, usage, budgetKeyId }: Extract<LedgerWrite, { kind: 'settle' }>) => {
    const taken = takeFromHold(heldNow(leaseId), usage.cost)
    if (taken > 0) amounts.take(leaseId, taken)
    debitAccount.run(usage.cost, taken, usage.accountId)
    chargeKey.run(usage.cost, Math.max(0, usage.createdAt), usage.keyId)
    if (taken > 0 && budgetKeyId !== undefined) addKeyReserved.run(-taken, budgetKeyId)
  }

  /** A batch of releases is applied once: written again under its id (its first answer lost), it is a no-op. */
  const firstTime = (batchId: string | undefined): boolean => {
    if (batchId === undefined) return true
    const now = Date.now()
    pruneBatches.run(now - 86_400_000)
    return markBatch.run(batchId, now).changes > 0
  }

  /** Returns how many usage rows it put into the inbox. */
  const write = client.transaction((batch: LedgerWrite[], batchId: string | undefined, replay: boolean): number => {
    amounts.begin()
    if (!firstTime(batchId)) return 0
    const fresh = replay ? unbilled(batch) : batch
    const rows = insertUsage(fresh)
    applyMoney(fresh)
    return rows
  })

  /**
   * A replayed batch less the bills already written, each bill once. Writes are one at a time on a SQLite file, so
   * what is found missing here is still missing at the insert.
   */
  const unbilled = (batch: LedgerWrite[]): LedgerWrite[] => {
    const seen = new Set<string>()
    return batch.filter((entry) => {
      if (entry.kind === 'release') return true
      const { requestId, accountId, createdAt } = entry.usage
      if (seen.has(requestId)) return false
      seen.add(requestId)
      return !billed.get(accountId, createdAt, requestId)
    })
  }

  /** Commits a batch; what its leases gave up counts in memory once it has. Returns the rows put into the inbox. */
  const commitWrite = (batch: LedgerWrite[], options: { batchId?: string; replay?: boolean } | undefined): number => {
    const rows = write.immediate(batch, options?.batchId, options?.replay ?? false)
    amounts.committed()
    return rows
  }

  /**
   * Every reservation in the file given back: only a server holding the serve lock calls this, so every hold is a
   * dead one's. `reserved` is zeroed rather than reduced by each hold row, whose amount is what its lease was granted,
   * not what it still held when the server died. Returns how many holds there were.
   */
  const releaseAll = client.transaction(() => {
    const released = deleteAllHolds.run().changes
    zeroAccounts.run()
    zeroKeys.run()
    zeroPeriods.run()
    return released
  })

  return {
    async reserve(request) {
      const reservation = reserve.immediate(request)
      amounts.committed()
      return reservation
    },
    // Not an async function: the commit is synchronous, and one settled promise serves every write (an async call
    // made a generator and a promise a bill). A failure is still a rejected promise, never a throw.
    write(batch, options) {
      try {
        if (batch.length) inbox.added(commitWrite(batch, options))
        return written
      } catch (error) {
        return Promise.reject(error)
      }
    },
    writeNow(batch, options) {
      if (batch.length) inbox.added(commitWrite(batch, options))
    },
    async ping() {
      client.query('SELECT 1').get()
    },
    // Only `serve` calls this, holding the file's serve lock: every hold in the file is a dead server's, and every
    // usage row still in the inbox is one it had not moved yet.
    async startServing() {
      const released = releaseAll.immediate()
      amounts.clear()
      inbox.moveAll()
      return released
    },
    inbox,
  }
}
