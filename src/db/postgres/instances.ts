import type { SQL } from 'bun'
import { randomBase62 } from '../../core/ids.ts'

export interface InstanceOptions {
  /** How often a serving instance refreshes its heartbeat. */
  heartbeatMs?: number
  /** An instance whose heartbeat is older than this is gone, and its holds may be released. */
  timeoutMs?: number
}

/** The database's clock, in epoch milliseconds: instances on different machines agree on it. */
const nowMs = 'floor(extract(epoch from clock_timestamp()) * 1000)::bigint'

/**
 * This process as one of the gateway instances sharing a PostgreSQL database. Every hold it places carries its id;
 * while it serves, its `instances` row's heartbeat is refreshed every `heartbeatMs`, and a starting instance releases
 * only holds whose owner left no row or stopped beating more than `timeoutMs` ago. So one instance starting never
 * takes the money of another one's requests in flight, however long they run, and a crashed instance's holds come
 * back at the next start after the timeout.
 */
export class PostgresInstance {
  readonly id = `inst_${randomBase62(16)}`
  private readonly heartbeatMs: number
  private readonly timeoutMs: number
  private timer: ReturnType<typeof setInterval> | undefined
  /** Set at start: what counts as an ownerless hold old enough to release, for the sweeps that follow. */
  private unownedBefore = 0
  private beats = 0

  constructor(private readonly client: SQL, options: InstanceOptions = {}) {
    this.heartbeatMs = options.heartbeatMs ?? 5_000
    this.timeoutMs = options.timeoutMs ?? 30_000
  }

  /** Record this instance as alive and keep it so (until `stop`); then release what dead instances left. */
  async start(unownedBefore: number): Promise<number> {
    // (Released again by every instance about once per `timeoutMs` while it serves: see `beat`.)
    const { client } = this
    this.unownedBefore = unownedBefore
    await client.unsafe(`INSERT INTO instances (id, started_at, heartbeat_at) VALUES ($1, ${nowMs}, ${nowMs})
      ON CONFLICT (id) DO UPDATE SET heartbeat_at = EXCLUDED.heartbeat_at`, [this.id])
    this.timer ??= setInterval(() => void this.beat(), this.heartbeatMs)
    this.timer.unref?.()
    return this.releaseOrphanedHolds(unownedBefore)
  }

  private async beat(): Promise<void> {
    try {
      await this.client.unsafe(`UPDATE instances SET heartbeat_at = ${nowMs} WHERE id = $1`, [this.id])
      // About once per timeout, release what an instance that died since our start left: otherwise its holds wait,
      // reserved, for some instance's next start (a crashed one restarted at once is not gone yet at its own start).
      if (++this.beats % Math.max(1, Math.round(this.timeoutMs / this.heartbeatMs)) === 0) await this.releaseOrphanedHolds(this.unownedBefore)
    } catch {
      // The database is unreachable: so is every other instance's release; the next beat tries again.
    }
  }

  private releaseOrphanedHolds(unownedBefore: number): Promise<number> {
    return this.client.begin(async (tx) => {
      // Instances starting together release one after the other, so none counts another's release twice.
      await tx`SELECT pg_advisory_xact_lock(7423002)`
      await tx.unsafe(`DELETE FROM instances WHERE heartbeat_at < ${nowMs} - $1`, [this.timeoutMs])
      const orphaned: { account_id: string; amount: string; budget_key_id: string | null }[] = await tx`
        DELETE FROM holds WHERE (instance_id IS NULL AND created_at < ${unownedBefore})
          OR (instance_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM instances WHERE instances.id = holds.instance_id))
        RETURNING account_id, amount, budget_key_id`
      for (const hold of orphaned) {
        await tx`UPDATE accounts SET reserved = reserved - ${Number(hold.amount)} WHERE id = ${Number(hold.account_id)}`
        if (hold.budget_key_id !== null) await tx`UPDATE api_keys SET reserved = reserved - ${Number(hold.amount)} WHERE id = ${hold.budget_key_id}`
      }
      return orphaned.length
    })
  }

  /** A clean stop: the instance leaves (its holds were written back by the ledger's drain before this). */
  async stop(): Promise<void> {
    clearInterval(this.timer)
    this.timer = undefined
    await this.client`DELETE FROM instances WHERE id = ${this.id}`.catch(() => {})
  }
}
