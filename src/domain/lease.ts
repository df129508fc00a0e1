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
  /** What the lease's hold row holds once every queued write is applied. */
  amount: number
  /** Sum of the holds of requests in flight under this lease. */
  used: number
  growing?: Promise<void>
  /** Runs while the lease may be idle (leases.ts `scheduleRelease`); when it fires, `used` says whether it is. */
  idleTimer?: ReturnType<typeof setTimeout>
  /** `performance.now()` when its last request ended. */
  idleSince?: number
  /** Its process was declared gone since it was made: only its requests in flight still settle under it. */
  retired?: boolean
  /** The id its requests' holds carry, once it was reserved again under a new one. */
  heldAs?: string
  /** Its hold row exists (it was granted money once): dropping the lease must delete it, even empty. */
  hasRow?: boolean
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
  return { id: lease.id, accountId: lease.accountId, keyId, amount, createdAt: Date.now(), budgetKeyId: lease.budgetKeyId }
}

/** An account's lease by its (numeric) id, a budgeted key's by its (string) id: the two can never collide in a Map. */
export function leaseKeyOf(accountId: number, budgetKeyId: string | undefined): number | string {
  return budgetKeyId ?? accountId
}
