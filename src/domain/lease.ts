import type { Hold } from './records.ts'

/** Money this process has reserved in the database for one account, handed out to requests in memory. */
export interface Lease {
  id: string
  accountId: number
  /** A lease of one key with a budget: it also holds that much of the key's budget. */
  budgetKeyId?: string
  /** What the lease's hold row holds once every queued write is applied. */
  amount: number
  /** Sum of the holds of requests in flight under this lease. */
  used: number
  growing?: Promise<void>
  idleTimer?: ReturnType<typeof setTimeout>
}

/** A request's hold, cut from a lease that has room for it. */
export function carve(lease: Lease, keyId: string, amount: number): Hold {
  lease.used += amount
  if (lease.idleTimer !== undefined) {
    clearTimeout(lease.idleTimer)
    lease.idleTimer = undefined
  }
  return { id: lease.id, accountId: lease.accountId, keyId, amount, createdAt: Date.now(), budgetKeyId: lease.budgetKeyId }
}

/** An account's lease by its (numeric) id, a budgeted key's by its (string) id: the two can never collide in a Map. */
export function leaseKeyOf(accountId: number, budgetKeyId: string | undefined): number | string {
  return budgetKeyId ?? accountId
}
