import type { Lease } from './lease.ts'
import type { LedgerWriter } from './ledger-writer.ts'

/**
 * Giving this process's leases back to the balance: an idle lease once it has been idle `leaseIdleMs`, a retired one
 * as soon as its requests are done, and the unused room of an account's other leases when one needs it. The maps are
 * those of Leases (leases.ts), which finds, grows and retires the leases.
 */
export class LeaseReleases {
  constructor(
    /** Leases.current: by account id, or by key id for keys under a budget. */
    private readonly current: Map<number | string, Lease>,
    /** Leases.retired: retired leases with requests in flight, by the id their holds carry. */
    private readonly retired: Map<string, Lease>,
    private readonly writer: LedgerWriter,
    private readonly leaseIdleMs: number,
  ) {}

  /**
   * Give the unused room of the account's other leases in this process back to its balance: an idle lease is released
   * whole, a busy one shrinks to the holds of its requests in flight. Returns how much was given back (queued).
   */
  reclaimRoom(accountId: number, except: Lease): number {
    let freed = 0
    for (const lease of [...this.current.values()]) {
      if (lease === except || lease.accountId !== accountId || lease.growing) continue
      const room = lease.amount - lease.used
      if (room <= 0) continue
      freed += room
      if (lease.used === 0) {
        this.release(lease)
        continue
      }
      lease.amount = lease.used
      this.writer.enqueue({
        kind: 'release',
        leaseId: lease.id,
        accountId,
        amount: room,
        budgetKeyId: lease.budgetKeyId,
        budgetPeriods: lease.periods,
      })
    }
    return freed
  }

  /** Give a current lease back now, if no request uses it (its empty row goes too); a growing one is looked at later. */
  release(lease: Lease): void {
    if (lease.used !== 0 || this.current.get(lease.slot) !== lease) return
    // Growing for a request that may yet be refused: look again later, or its room would stay reserved for good.
    if (lease.growing !== undefined) return this.scheduleRelease(lease)
    clearTimeout(lease.idleTimer)
    lease.idleTimer = undefined
    this.current.delete(lease.slot)
    if (lease.hasRow) {
      this.writer.enqueue({
        kind: 'release',
        leaseId: lease.id,
        accountId: lease.accountId,
        amount: lease.amount,
        budgetKeyId: lease.budgetKeyId,
        budgetPeriods: lease.periods,
      })
    }
  }

  /** Give back every idle lease (shutdown). */
  releaseAll(): void {
    for (const lease of [...this.current.values()]) this.release(lease)
  }

  /**
   * Give the lease back once it has been idle `leaseIdleMs`. One timer a lease, not one a request: a request carving
   * from it leaves the timer running, and a timer that finds the lease busy, or idle for less long, waits again
   * (requests arriving one by one made a timer and a closure each, bench/census.ts --concurrency 1).
   */
  private scheduleRelease(lease: Lease): void {
    lease.idleSince = performance.now()
    if (lease.idleTimer !== undefined) return
    lease.idleTimer = setTimeout(expireIdle, this.leaseIdleMs, this, lease)
    lease.idleTimer.unref?.()
  }

  /** The idle timer fired: release the lease if it is still idle and has been for `leaseIdleMs`. */
  idleTimerFired(lease: Lease): void {
    lease.idleTimer = undefined
    if (lease.used !== 0 || lease.idleSince === undefined) return // busy: the end of its last request starts the wait again
    const left = lease.idleSince + this.leaseIdleMs - performance.now()
    if (left <= 0) return this.release(lease)
    lease.idleTimer = setTimeout(expireIdle, left, this, lease)
    lease.idleTimer.unref?.()
  }

  /** A lease whose requests are all done: a current one waits `leaseIdleMs` for more, a retired one goes back at once. */
  giveBackIfIdle(lease: Lease): void {
    if (lease.used !== 0) return
    if (!lease.retired) return this.scheduleRelease(lease)
    if (lease.growing !== undefined) return // once reserved again (leases.ts `retire`)
    this.retired.delete(lease.heldAs ?? lease.id)
    // Released even when nothing is left (its row is then deleted); never below 0 (a lease not reserved again).
    this.writer.enqueue({
      kind: 'release',
      leaseId: lease.id,
      accountId: lease.accountId,
      amount: Math.max(0, lease.amount),
      budgetKeyId: lease.budgetKeyId,
      budgetPeriods: lease.periods,
    })
    lease.amount = 0
  }
}

function expireIdle(releases: LeaseReleases, lease: Lease): void {
  releases.idleTimerFired(lease)
}
