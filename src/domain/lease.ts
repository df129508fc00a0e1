import type { Hold } from './records.ts'

/** Money this process has reserved in the database for one account, handed out to requests in memory. */
export interface Lease {
  /** Its hold row's id; a lease re-reserved after its process was declared gone gets a new one (ledger.ts `retire`). */
  id: string
  accountId: number
  /** The key whose request made it (its hold row's key_id). */
  keyId: string
  /** A lease of one key with a budget: it also holds that much of the key's budget. */
  budgetKeyId?: string
  /** Where the ledger keeps it: its key's id when it holds budget money (a key's or a scheduled one), else its account's. */
  slot: number | string
  /** The scheduled budgets it also holds money of (their ids), and `signature` of them as the key was read with them. */
  budgetIds?: readonly number[]
  signature?: string
  /** The budget periods its hold row counts against, once it was granted money (`budget:start,…`). */
  periods?: string
  /** When the first of those periods ends (epoch ms): a later request needs a new lease, in the new period. */
  validUntil: number
  /** What the lease's hold row holds once every queued write is applied. */
  amount: number
  /** Sum of the holds of requests in flight under this lease. */
  used: number
  growing?: Promise<void>
  /** Runs while the lease may be idle (lease-releases.ts `scheduleRelease`); when it fires, `used` says whether it is. */
  idleTimer?: ReturnType<typeof setTimeout>
  /** `performance.now()` when its last request ended. */
  idleSince?: number
  /** Its process was declared gone since it was made: only its requests in flight still settle under it. */
  retired?: boolean
  /** The id its requests' holds carry, once it was reserved again under a new one. */
  heldAs?: string
  /** Its hold row exists (it was granted money once): dropping the lease must delete it, even empty. */
  hasRow?: boolean
  /** The scheduled budget that last refused to grow it (none: the key's lifetime budget), and when its period resets. */
  shortBy?: { budgetId?: number; resetsAt?: number }
}

/**
 * How long this process's leases are certainly still reserved in the database. PostgreSQL: other instances release
 * the holds of one whose heartbeat is older than their timeout, so a lease is trusted only until then
 * (db/postgres/instances.ts); SQLite has no term (one server per file).
 */
export interface LeaseTerm {
  /** `performance.now()` before which no other instance can have released this process's holds. */
  readonly trustedUntil: number
  /**
   * A heartbeat now. Resolves once the term is extended — or, when this process finds it was declared gone, once it
   * is registered again and the `onLost` listeners have run. Rejects while the database does not answer.
   */
  renew(): Promise<void>
  /** Called when this process finds it was declared gone: its holds were released by another instance. */
  onLost(listener: () => void): void
}

/** A request's hold, cut from a lease that has room for it. */
export function carve(lease: Lease, keyId: string, amount: number): Hold {
  lease.used += amount
  return {
    id: lease.id,
    accountId: lease.accountId,
    keyId,
    amount,
    createdAt: Date.now(),
    budgetKeyId: lease.budgetKeyId,
    budgetPeriods: lease.periods,
  }
}

/**
 * Where a lease is kept: an account's by its (numeric) id, the lease of a key under any budget by the key's (string)
 * id — the two can never collide in a Map. A hold finds its lease's slot the same way.
 */
export function slotOf(accountId: number, keyId: string, budgeted: boolean): number | string {
  return budgeted ? keyId : accountId
}
