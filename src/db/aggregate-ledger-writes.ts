import type { LedgerWrite } from '../domain/records.ts'

export interface LedgerTotals {
  /** Per account: money debited, and unused lease money released. */
  accounts: Map<number, { debit: number; released: number }>
  /** Per lease: how much its hold row shrinks (costs charged under it plus releases). */
  leases: Map<string, number>
  /** Leases that were released, whose rows may now be empty. */
  releasedLeases: Set<string>
  keys: Map<string, { spent: number; lastUsedAt: number }>
  /** Per budgeted key: how much its `reserved` shrinks (costs now spent, plus released lease money). */
  budgetReleases: Map<string, number>
}

/**
 * Fold a batch into one update per account, lease and key, so a batch of hundreds of requests costs a handful of
 * UPDATEs plus its usage INSERTs. The same arithmetic serves every database dialect.
 */
export function aggregateLedgerWrites(batch: LedgerWrite[]): LedgerTotals {
  const totals: LedgerTotals = { accounts: new Map(), leases: new Map(), releasedLeases: new Set(), keys: new Map(), budgetReleases: new Map() }
  for (const write of batch) {
    if (write.kind === 'refusal') continue // a usage row only: no money moved
    const accountId = write.kind === 'settle' ? write.usage.accountId : write.accountId
    const account = totals.accounts.get(accountId) ?? { debit: 0, released: 0 }
    totals.accounts.set(accountId, account)
    const amount = write.kind === 'settle' ? write.usage.cost : write.amount
    totals.leases.set(write.leaseId, (totals.leases.get(write.leaseId) ?? 0) + amount)
    if (write.budgetKeyId !== undefined) totals.budgetReleases.set(write.budgetKeyId, (totals.budgetReleases.get(write.budgetKeyId) ?? 0) + amount)
    if (write.kind === 'release') {
      account.released += write.amount
      totals.releasedLeases.add(write.leaseId)
      continue
    }
    account.debit += write.usage.cost
    const key = totals.keys.get(write.usage.keyId) ?? { spent: 0, lastUsedAt: 0 }
    key.spent += write.usage.cost
    key.lastUsedAt = Math.max(key.lastUsedAt, write.usage.createdAt)
    totals.keys.set(write.usage.keyId, key)
  }
  return totals
}
