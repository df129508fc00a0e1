import type { LedgerWrite } from '../domain/records.ts'

/** What one lease's hold row gives up in a batch: the costs charged under it plus the money released. */
export interface LeaseShrink {
  amount: number
  accountId: number
  budgetKeyId?: string
  /** The budget periods its hold row counts against (`budget:start,…`). */
  budgetPeriods?: string
}

export interface LedgerTotals {
  /** Per account: money debited (always, whatever is left of its holds). */
  debits: Map<number, number>
  /** Per lease: how much its hold row shrinks, if it still holds that much. */
  leases: Map<string, LeaseShrink>
  /** Leases that were released, whose rows may now be empty. */
  releasedLeases: Set<string>
  keys: Map<string, { spent: number; lastUsedAt: number }>
  /** Per budget period (`budget:start`): the costs charged to it. */
  periodSpent: Map<string, number>
}

/**
 * Fold a batch into one update per account, lease and key, so a batch of hundreds of requests costs a handful of
 * UPDATEs plus its usage INSERTs. The same arithmetic serves every database dialect.
 */
export function aggregateLedgerWrites(batch: LedgerWrite[]): LedgerTotals {
  const totals: LedgerTotals = { debits: new Map(), leases: new Map(), releasedLeases: new Set(), keys: new Map(), periodSpent: new Map() }
  for (const write of batch) {
    if (write.kind === 'refusal') continue // a usage row only: no money moved
    const accountId = write.kind === 'settle' ? write.usage.accountId : write.accountId
    const amount = write.kind === 'settle' ? write.usage.cost : write.amount
    const lease = totals.leases.get(write.leaseId)
    if (lease) lease.amount += amount
    else totals.leases.set(write.leaseId, { amount, accountId, budgetKeyId: write.budgetKeyId, budgetPeriods: write.budgetPeriods })
    totals.debits.set(accountId, (totals.debits.get(accountId) ?? 0) + (write.kind === 'settle' ? write.usage.cost : 0))
    if (write.kind === 'release') {
      totals.releasedLeases.add(write.leaseId)
      continue
    }
    const key = totals.keys.get(write.usage.keyId) ?? { spent: 0, lastUsedAt: 0 }
    key.spent += write.usage.cost
    key.lastUsedAt = Math.max(key.lastUsedAt, write.usage.createdAt)
    totals.keys.set(write.usage.keyId, key)
    // Spent in the periods it was admitted in, whatever the time is now.
    if (write.budgetPeriods)
      for (const ref of write.budgetPeriods.split(',')) totals.periodSpent.set(ref, (totals.periodSpent.get(ref) ?? 0) + write.usage.cost)
  }
  return totals
}

/**
 * How much `reserved` shrinks per account, per budgeted key and per budget period, given what each lease's hold row actually gave up
 * (`taken`, by lease id). A hold is taken from only as far as it still holds: one that another instance released
 * (its owner declared gone) gives nothing, so money released once is never released again and `reserved` — the sum
 * of the hold rows — never drops below them, however late a bill arrives.
 */
export function releasedBy(
  totals: LedgerTotals,
  taken: Map<string, number>,
): { accounts: Map<number, number>; budgetKeys: Map<string, number>; periods: Map<string, number> } {
  const accounts = new Map<number, number>()
  const budgetKeys = new Map<string, number>()
  const periods = new Map<string, number>()
  for (const [leaseId, lease] of totals.leases) {
    const amount = taken.get(leaseId) ?? 0
    if (amount === 0) continue
    accounts.set(lease.accountId, (accounts.get(lease.accountId) ?? 0) + amount)
    if (lease.budgetKeyId !== undefined) budgetKeys.set(lease.budgetKeyId, (budgetKeys.get(lease.budgetKeyId) ?? 0) + amount)
    if (lease.budgetPeriods) for (const ref of lease.budgetPeriods.split(',')) periods.set(ref, (periods.get(ref) ?? 0) + amount)
  }
  return { accounts, budgetKeys, periods }
}

/** What a hold row holding `held` (undefined: no row) gives up when asked for `wanted`. */
export function takeFromHold(held: number | undefined, wanted: number): number {
  return held === undefined ? 0 : Math.max(0, Math.min(held, wanted))
}

/**
 * The writes whose usage rows were new, given the request ids of the rows actually inserted: a bill already committed
 * (replayed from the spool, or written again after its answer was lost) moves no money a second time. Releases carry
 * no usage row and always stay. Each inserted id is used once, so a batch holding one bill twice applies it once.
 */
export function keepInserted(batch: LedgerWrite[], inserted: Iterable<string>): LedgerWrite[] {
  const fresh = new Set(inserted)
  return batch.filter((write) => write.kind === 'release' || fresh.delete(write.usage.requestId))
}

/** A unique-constraint violation (SQLite or PostgreSQL): a usage row for one of the batch's request ids exists. */
export function isDuplicateRow(error: unknown): boolean {
  const { code, errno } = error as { code?: unknown; errno?: unknown }
  return errno === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE'
}
