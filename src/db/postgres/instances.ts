import type { SQL } from 'bun'
import { decodePeriodRefs } from '../../domain/budgets/period-refs.ts'
import { randomBase62 } from '../../core/ids.ts'
import type { LeaseTerm } from '../../domain/lease.ts'
import { BackgroundJob } from '../../core/background-failures.ts'
import type { Logger } from '../../core/logger.ts'

export interface InstanceOptions {
  /** How often a serving instance refreshes its heartbeat. */
  heartbeatMs?: number
  /** An instance whose heartbeat is older than this is gone, and its holds may be released. */
  timeoutMs?: number
  /** Where heartbeat failures are told (a serving gateway's logger); without one they are only counted. */
  logger?: Logger
}

/** The database's clock, in epoch milliseconds: instances on different machines agree on it. */
const nowMs = 'floor(extract(epoch from clock_timestamp()) * 1000)::bigint'

/**
 * This process as one of the gateway instances sharing a PostgreSQL database. Every hold it places carries its id;
 * while it serves, its `instances` row's heartbeat is refreshed every `heartbeatMs`, and a starting instance releases
 * only holds whose owner left no row or stopped beating more than `timeoutMs` ago. So one instance starting never
 * takes the money of another one's requests in flight, however long they run, and a crashed instance's holds come
 * back at the next start after the timeout.
 *
 * An instance that was silent longer than the timeout (paused, cut off from the database, stalled) may have been
 * declared gone: its row deleted and its holds released by another. It finds out from its next heartbeat (which then
 * updates no row) or reservation (ledger.ts refuses one for an id with no row), registers again under a new id and
 * tells the ledger, which stops using its old leases (the lease term). Until a heartbeat proves otherwise, its leases
 * are trusted only while no other instance can have released them: `timeoutMs` after the last heartbeat was sent,
 * less one beat of margin.
 */
export class PostgresInstance implements LeaseTerm {
  id = newInstanceId()
  trustedUntil = 0
  /** Times this instance found it had been declared gone (and registered again). */
  losses = 0
  private readonly heartbeatMs: number
  private readonly timeoutMs: number
  private timer: ReturnType<typeof setInterval> | undefined
  /** Set at start: what counts as an ownerless hold old enough to release, for the sweeps that follow. */
  private unownedBefore = 0
  private beats = 0
  /** `performance.now()` of the first heartbeat of the current unbroken run of them (undefined after a failure). */
  private connectedSince: number | undefined
  private beating: Promise<void> | undefined
  private recovering: Promise<void> | undefined
  private readonly listeners: (() => void)[] = []
  private registered = false
  private readonly heartbeat: BackgroundJob | undefined

  constructor(
    private readonly client: SQL,
    options: InstanceOptions = {},
  ) {
    this.heartbeatMs = options.heartbeatMs ?? 5_000
    this.timeoutMs = options.timeoutMs ?? 30_000
    this.heartbeat =
      options.logger &&
      new BackgroundJob(
        options.logger,
        'instance heartbeat',
        'holds of instances that died are not released, and this one may be declared gone, until it works again',
      )
  }

  /** Record this instance as alive and keep it so (until `stop`); then release what dead instances left. */
  async start(unownedBefore: number): Promise<number> {
    // (Released again by every instance about once per `timeoutMs` while it serves: see `tick`.)
    this.unownedBefore = unownedBefore
    await this.register()
    this.connectedSince = performance.now()
    this.timer ??= setInterval(() => void this.tick(), this.heartbeatMs)
    this.timer.unref?.()
    return this.releaseOrphanedHolds(unownedBefore)
  }

  onLost(listener: () => void): void {
    this.listeners.push(listener)
  }

  /** One heartbeat now, shared by every caller while it runs; rejects while the database does not answer. */
  renew(): Promise<void> {
    this.beating ??= this.beat().finally(() => (this.beating = undefined))
    return this.beating
  }

  /**
   * No row for this instance: it was declared gone (its holds released), so register again under a new id, then tell
   * the ledger, once per loss. An instance that never registered (a store used without `start`, as tests and the
   * CLI do) only registers.
   */
  recover(): Promise<void> {
    // Its leases are void from now on, even if registering fails (the database away again): nothing is carved from them.
    this.trustedUntil = 0
    const lost = this.registered
    this.recovering ??= this.register(lost ? newInstanceId() : this.id)
      .then(() => {
        if (!lost) return
        this.losses++
        for (const listener of this.listeners) listener()
      })
      .finally(() => (this.recovering = undefined))
    return this.recovering
  }

  private async register(id = this.id): Promise<void> {
    const sent = performance.now()
    await this.client.unsafe(
      `INSERT INTO instances (id, started_at, heartbeat_at) VALUES ($1, ${nowMs}, ${nowMs})
      ON CONFLICT (id) DO UPDATE SET heartbeat_at = EXCLUDED.heartbeat_at`,
      [id],
    )
    this.id = id
    this.registered = true
    this.trust(sent)
  }

  private async beat(): Promise<void> {
    const sent = performance.now()
    let timer: ReturnType<typeof setTimeout> | undefined
    // A heartbeat that never comes back (a connection into a black hole) must not hold every later one.
    const overdue = new Promise<never>((_, reject) => (timer = setTimeout(reject, this.heartbeatMs * 2, new Error('heartbeat overdue'))))
    try {
      const updated = await Promise.race([
        this.client.unsafe(`UPDATE instances SET heartbeat_at = ${nowMs} WHERE id = $1`, [this.id]),
        overdue,
      ])
      if (updated.count === 0) await this.recover()
      else this.trust(sent)
    } finally {
      clearTimeout(timer)
    }
  }

  private trust(sent: number): void {
    this.trustedUntil = Math.max(this.trustedUntil, sent + this.timeoutMs - this.heartbeatMs)
  }

  private async tick(): Promise<void> {
    try {
      await this.renew()
      this.connectedSince ??= performance.now()
      // About once per timeout, release what an instance that died since our start left: otherwise its holds wait,
      // reserved, for some instance's next start (a crashed one restarted at once is not gone yet at its own start).
      // Never in the first `timeoutMs` after the database came back: every other instance was cut off too, and
      // has not had the time to beat again.
      if (
        ++this.beats % Math.max(1, Math.round(this.timeoutMs / this.heartbeatMs)) === 0 &&
        performance.now() - this.connectedSince >= this.timeoutMs
      ) {
        await this.releaseOrphanedHolds(this.unownedBefore)
      }
      this.heartbeat?.succeeded()
    } catch (error) {
      // The database is unreachable (so is every other instance's release), or a bug: the next beat tries again.
      this.heartbeat?.failed(error)
      this.connectedSince = undefined
    }
  }

  private releaseOrphanedHolds(unownedBefore: number): Promise<number> {
    return this.client.begin(async (tx) => {
      // Instances starting together release one after the other, so none counts another's release twice.
      await tx`SELECT pg_advisory_xact_lock(7423002)`
      await tx.unsafe(`DELETE FROM instances WHERE heartbeat_at < ${nowMs} - $1`, [this.timeoutMs])
      const orphan = `(instance_id IS NULL AND created_at < $1)
        OR (instance_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM instances WHERE instances.id = holds.instance_id))`
      // Their accounts first, in id order, as the ledger's batches lock them: a batch from an instance being declared
      // gone at this moment waits here instead of deadlocking.
      await tx.unsafe(`SELECT id FROM accounts WHERE id IN (SELECT account_id FROM holds WHERE ${orphan}) ORDER BY id FOR UPDATE`, [
        unownedBefore,
      ])
      const orphaned: { account_id: string; amount: string; budget_key_id: string | null; budget_periods: string | null }[] =
        await tx.unsafe(
          `DELETE FROM holds WHERE id IN (SELECT id FROM holds WHERE ${orphan} ORDER BY id FOR UPDATE) RETURNING account_id, amount, budget_key_id, budget_periods`,
          [unownedBefore],
        )
      for (const hold of orphaned) {
        await tx`UPDATE accounts SET reserved = reserved - ${Number(hold.amount)} WHERE id = ${Number(hold.account_id)}`
        if (hold.budget_key_id !== null)
          await tx`UPDATE api_keys SET reserved = reserved - ${Number(hold.amount)} WHERE id = ${hold.budget_key_id}`
      }
      // Then the budget periods they held, in the order batches take them.
      const periods = orphaned.flatMap((hold) =>
        decodePeriodRefs(hold.budget_periods).map((ref) => ({ ...ref, amount: Number(hold.amount) })),
      )
      for (const ref of periods.sort((a, b) => a.budgetId - b.budgetId || a.start - b.start)) {
        await tx`UPDATE budget_periods SET reserved = reserved - ${ref.amount} WHERE budget_id = ${ref.budgetId} AND period_start = ${ref.start}`
      }
      // The record of applied release batches (ledger.ts) is needed only while a batch may be written again.
      await tx.unsafe(`DELETE FROM ledger_batches WHERE applied_at < ${nowMs} - 86400000`)
      return orphaned.length
    })
  }

  /** A clean stop: the instance leaves (its holds were written back by the ledger's drain before this). */
  async stop(): Promise<void> {
    clearInterval(this.timer)
    this.timer = undefined
    // Not deleted (the database is gone): the row ages out, and other instances declare this one gone after the timeout.
    await this.client`DELETE FROM instances WHERE id = ${this.id}`.catch((error: unknown) => this.heartbeat?.failed(error))
  }
}

function newInstanceId(): string {
  return `inst_${randomBase62(16)}`
}
