import type { Hold, KeyRecord } from './records.ts'
import type { LedgerRepository, Reservation } from './repositories.ts'
import type { Logger } from '../core/logger.ts'
import { randomBase62 } from '../core/ids.ts'
import { type Lease, slotOf } from './lease.ts'
import { LeaseReleases } from './lease-releases.ts'
import type { LedgerWriter } from './ledger-writer.ts'
import { overdue, withinDeadline } from './within-deadline.ts'

export interface LeasesOptions {
  leaseFactor: number
  leaseIdleMs: number
  writeTimeoutMs: number
  logger?: Logger
}

/** Why a lease could not grow: the balance or budget, this process declared gone, or no answer in time. */
export type Shortfall = Reservation['short'] | 'unreachable'

/** The scheduled budgets a key's holds count against, as the key cache read them with the key (budgets/governance.ts). */
export type GovernedKey = Pick<KeyRecord, 'budgets' | 'budgetSignature' | 'project'>

/**
 * This process's leases (lease.ts) and their arithmetic: finding or making the lease a hold is carved from, growing a
 * lease by a reservation, and retiring every lease when the process finds it was declared gone; giving back idle room
 * is lease-releases.ts. The ledger (ledger.ts) decides when; this knows how.
 */
export class Leases {
  /** By account id, or by key id for the leases of keys under a budget (slotOf). */
  private readonly current = new Map<number | string, Lease>()
  /** Retired leases with requests in flight, by the id their holds carry (the lease's own id may be new). */
  private readonly retired = new Map<string, Lease>()
  /** Bumped each time the process is declared gone: a reservation made before then is not this process's any more. */
  private epoch = 0

  /** Giving back: idle leases after `leaseIdleMs`, retired ones once their requests are done, room for another lease. */
  private readonly releases: LeaseReleases

  constructor(
    private readonly repository: LedgerRepository,
    private readonly writer: LedgerWriter,
    private readonly options: LeasesOptions,
  ) {
    this.releases = new LeaseReleases(this.current, this.retired, writer, options.leaseIdleMs)
  }

  /**
   * The lease a hold of this account (and key, under budgets) is carved from; made empty when there is none. A lease
   * whose budget period has ended, or made under other budgets than the key's now, is not: it ends (`end`), and a
   * new one is made, reserved in the new period.
   */
  leaseFor(accountId: number, keyId: string, budgetKeyId: string | undefined, governed: GovernedKey | undefined, create: true): Lease
  leaseFor(
    accountId: number,
    keyId: string,
    budgetKeyId: string | undefined,
    governed: GovernedKey | undefined,
    create?: false,
  ): Lease | undefined
  leaseFor(
    accountId: number,
    keyId: string,
    budgetKeyId: string | undefined,
    governed: GovernedKey | undefined,
    create = false,
  ): Lease | undefined {
    const scheduled = governed?.budgets !== undefined && governed.budgets.length > 0
    const slot = slotOf(accountId, keyId, budgetKeyId !== undefined || scheduled)
    let lease = this.current.get(slot)
    const signature = scheduled ? governed.budgetSignature : undefined
    if (
      lease &&
      !lease.growing &&
      (lease.signature !== signature ||
        lease.budgetKeyId !== budgetKeyId ||
        (lease.validUntil !== Infinity && lease.validUntil <= Date.now()))
    ) {
      this.end(lease)
      lease = undefined
    }
    if (!lease && create) {
      lease = { id: newLeaseId(), accountId, keyId, budgetKeyId, slot, amount: 0, used: 0, validUntil: Infinity }
      if (scheduled) Object.assign(lease, { budgetIds: governed.budgets!.map((budget) => budget.id), signature })
      this.current.set(slot, lease)
    }
    return lease
  }

  /**
   * A lease that is not carved from any more (its period ended, its budgets changed): its requests in flight still
   * settle under it, and its unused money goes back once they have (at once, when none is in flight).
   */
  end(lease: Lease): void {
    if (this.current.get(lease.slot) === lease) this.current.delete(lease.slot)
    clearTimeout(lease.idleTimer)
    lease.idleTimer = undefined
    if (!lease.hasRow && lease.used === 0) return // never granted anything: nothing to give back
    lease.retired = true
    this.retired.set(lease.id, lease)
    this.releases.giveBackIfIdle(lease)
  }

  /** The lease a settling hold was carved from, current or retired; undefined when it is gone (released). */
  leaseOf(hold: Hold): Lease | undefined {
    const lease = this.current.get(slotOf(hold.accountId, hold.keyId, hold.budgetKeyId !== undefined || hold.budgetPeriods !== undefined))
    return lease?.id === hold.id ? lease : this.retired.get(hold.id)
  }

  /** A hold settled at `cost`: out of its lease's room and amount; returns the hold row its bill shrinks. */
  settle(hold: Hold, cost: number): string {
    const lease = this.leaseOf(hold)
    if (!lease) return hold.id
    lease.used -= hold.amount
    lease.amount -= cost
    this.releases.giveBackIfIdle(lease)
    return lease.id
  }

  /**
   * Grow a lease by at least `need` (up to `want`); returns what fell short when it could not. A reservation that
   * lands after its deadline still counts: its money is added to the lease (or given back, if nothing uses it).
   */
  async grow(lease: Lease, need: number, want: number): Promise<Shortfall> {
    const epoch = this.epoch
    let late = false
    const reserved = this.repository
      .reserve({
        leaseId: lease.id,
        accountId: lease.accountId,
        keyId: lease.keyId,
        budgetKeyId: lease.budgetKeyId,
        need,
        want,
        at: Date.now(),
        budgetIds: lease.budgetIds,
        periods: lease.periods,
      })
      .then(
        (result) => {
          // Granted to a registration since declared gone: another instance released it (or will).
          if (epoch !== this.epoch) return { granted: 0, short: 'gone' } satisfies Reservation
          if (result.granted > 0 && result.periods !== undefined) {
            lease.periods = result.periods
            lease.validUntil = result.validUntil ?? Infinity
          }
          if (result.short === 'budget') lease.shortBy = { budgetId: result.budgetId, resetsAt: result.resetsAt }
          lease.amount += result.granted
          lease.hasRow ||= result.granted > 0
          if (late && result.granted > 0) this.releases.giveBackIfIdle(lease)
          return result
        },
        (error: unknown) => {
          this.writer.markDown(error)
          return undefined
        },
      )
    let outcome: Shortfall = 'unreachable'
    const growing: Promise<void> = withinDeadline(reserved, this.options.writeTimeoutMs)
      .then((result) => {
        if (result === overdue) {
          late = true
          this.writer.markDown(new Error(`a reservation took more than ${this.options.writeTimeoutMs} ms`))
        } else if (result) outcome = result.granted > 0 ? undefined : (result.short ?? 'balance')
      })
      .finally(() => {
        if (lease.growing === growing) lease.growing = undefined
      })
    lease.growing = growing
    await growing
    return outcome
  }

  /** Give the unused room of the account's other leases back to its balance (lease-releases.ts); returns how much. */
  reclaimRoom(accountId: number, except: Lease): number {
    return this.releases.reclaimRoom(accountId, except)
  }

  /** Give a current lease back now, if no request uses it (lease-releases.ts). */
  release(lease: Lease): void {
    this.releases.release(lease)
  }

  /** Give back every idle lease (shutdown). */
  releaseAll(): void {
    this.releases.releaseAll()
  }

  /**
   * This process was declared gone: another instance released its holds. No lease is carved from again; each lease
   * with requests in flight is reserved again under a new id (a hold row that exists), before any of their bills is
   * written, so their debits land and shrink that — `reserved` never drops twice for one hold. A bill queued before
   * this still names the old row, which is gone: it debits the balance and releases nothing.
   */
  retire(): void {
    this.epoch++
    for (const lease of this.current.values()) {
      clearTimeout(lease.idleTimer)
      lease.idleTimer = undefined
      lease.retired = true
      if (lease.used > 0) this.retired.set(lease.id, lease)
    }
    this.current.clear()
    const inFlight = [...this.retired.values()]
    let held = 0
    for (const lease of inFlight) {
      lease.heldAs ??= lease.id
      lease.id = newLeaseId()
      lease.amount = 0
      held += lease.used
    }
    this.options.logger?.warn(
      { leases_in_flight: inFlight.length, held },
      'this instance had been declared gone (silent past the timeout) and its holds released: registered again, leases renewed',
    )
    if (inFlight.length === 0) return
    void this.writer.serialize(() =>
      Promise.all(
        inFlight.map(async (lease) => {
          const short = await this.grow(lease, lease.used, lease.used)
          if (short)
            this.options.logger?.warn(
              { account: lease.accountId, held: lease.used, short },
              'requests in flight could not be reserved again: they settle without a hold',
            )
          this.releases.giveBackIfIdle(lease)
        }),
      ),
    )
  }
}

function newLeaseId(): string {
  return `lease_${randomBase62(16)}`
}
