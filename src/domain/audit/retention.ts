import { BackgroundJob } from '../../core/background-failures.ts'
import type { Logger } from '../../core/logger.ts'
import { dayMs } from '../../core/time.ts'
import type { AuditRepository } from './records.ts'

export interface AuditRetentionOptions {
  /** Rows older than this many days are deleted; 0 keeps every row (nothing ever runs). */
  auditDays: number
  logger: Logger
  /** Rows per transaction, and the pause between two, so serving never waits long on it. */
  batchRows?: number
  pauseMs?: number
  everyMs?: number
  firstDelayMs?: number
}

/**
 * `retention.audit_days`: the one way an audit row ever leaves the table. Hourly (the first run a minute after start),
 * rows older than the setting are deleted a batch per transaction; by default the setting is 0 and this never runs.
 * With several instances each prunes: deleting what another already deleted is a no-op.
 */
export class AuditRetention {
  /** Told of each run: a failing run is logged once (its stack when a bug) and counted on /metrics. */
  private readonly job: BackgroundJob
  private timer: ReturnType<typeof setTimeout> | undefined
  private running: Promise<number> | undefined
  private stopped = false

  constructor(
    private readonly audit: AuditRepository,
    private readonly options: AuditRetentionOptions,
  ) {
    this.job = new BackgroundJob(options.logger, 'audit pruning', 'audit rows past retention.audit_days stay until it works again')
  }

  start(): void {
    if (this.options.auditDays > 0) this.schedule(this.options.firstDelayMs ?? 60_000)
  }

  async stop(): Promise<void> {
    this.stopped = true
    clearTimeout(this.timer)
    await this.running?.catch(() => 0)
  }

  /** Delete every row older than the setting allows, now; resolves with how many. */
  pruneNow(now = Date.now()): Promise<number> {
    this.running ??= this.pruneBefore(now - this.options.auditDays * dayMs).finally(() => (this.running = undefined))
    return this.running
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return
    this.timer = setTimeout(() => {
      void this.pruneNow()
        .then(
          () => this.job.succeeded(),
          (error: unknown) => this.job.failed(error),
        )
        .finally(() => this.schedule(this.options.everyMs ?? 3_600_000))
    }, delayMs)
    this.timer.unref?.()
  }

  private async pruneBefore(cutoff: number): Promise<number> {
    const batchRows = this.options.batchRows ?? 2_000
    let total = 0
    while (!this.stopped) {
      const deleted = await this.audit.prune(cutoff, batchRows)
      total += deleted
      if (deleted < batchRows) break
      await Bun.sleep(this.options.pauseMs ?? 15)
    }
    if (total > 0)
      this.options.logger.info({ rows: total, before: new Date(cutoff).toISOString() }, 'deleted audit rows past retention.audit_days')
    return total
  }
}
