import { BackgroundJob } from '../core/background-failures.ts'
import type { Logger } from '../core/logger.ts'
import { dayMs } from '../core/time.ts'
import type { UsageRepository } from './repositories.ts'

export interface UsageFolderOptions {
  /** Rows older than this many whole UTC days are folded; 0 keeps every row (the folder never runs). */
  requestsDays: number
  /** Rows per transaction. */
  batchRows?: number
  /** The pause between two batches, so requests waiting on the event loop (and on SQLite's one writer) go first. */
  pauseMs?: number
  /** How often a fold runs, and how long after start the first one does (start-up is busy enough). */
  everyMs?: number
  firstDelayMs?: number
  logger: Logger
}

/**
 * Bounds the disk usage rows take: rows older than `retention.requests_days` are folded into daily per-key
 * per-model per-status totals (usage_daily, kept forever) and deleted, a batch per transaction with a pause between
 * batches so serving never waits long for it. Summaries read both tables and are the same before and after; the
 * request log shows the live rows only. The ledger (money: balances, credits) is never touched.
 *
 * Only whole UTC days are folded (the cutoff is a midnight), so a folded day's totals are exact for whole-day ranges.
 */
export class UsageFolder {
  /** Told of each run: a failing run is logged once (its stack when a bug) and counted on /metrics. */
  private readonly job: BackgroundJob
  private timer: ReturnType<typeof setTimeout> | undefined
  private running: Promise<number> | undefined
  private stopped = false
  private readonly batchRows: number
  private readonly pauseMs: number
  private readonly everyMs: number
  private readonly firstDelayMs: number

  constructor(
    private readonly usage: UsageRepository,
    private readonly options: UsageFolderOptions,
  ) {
    this.job = new BackgroundJob(options.logger, 'usage folding', 'old usage rows stay as they are (the disk grows) until it works again')
    // 2,000 rows a batch took ~10–15 ms of SQLite on the serving thread (2 cores, 1M-row table); a pause as long
    // again keeps the fold to about half of one core and the requests around it within a batch's time of normal.
    this.batchRows = options.batchRows ?? 2_000
    this.pauseMs = options.pauseMs ?? 15
    this.everyMs = options.everyMs ?? 3_600_000
    this.firstDelayMs = options.firstDelayMs ?? 60_000
  }

  /** Fold once `firstDelayMs` after now, then every `everyMs`; nothing when retention keeps every row. */
  start(): void {
    if (this.options.requestsDays <= 0) return
    this.schedule(this.firstDelayMs)
  }

  /** No new batch starts; resolves once the batch in progress (if any) is committed. */
  async stop(): Promise<void> {
    this.stopped = true
    clearTimeout(this.timer)
    await this.running?.catch(() => 0)
  }

  /** Fold every row older than the retention cutoff now, batch by batch; resolves with how many rows were folded. */
  foldNow(now = Date.now()): Promise<number> {
    this.running ??= this.foldAll(foldCutoff(now, this.options.requestsDays)).finally(() => (this.running = undefined))
    return this.running
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return
    this.timer = setTimeout(() => {
      void this.foldNow()
        .then(
          () => this.job.succeeded(),
          (error: unknown) => this.job.failed(error),
        )
        .finally(() => this.schedule(this.everyMs))
    }, delayMs)
    this.timer.unref?.()
  }

  private async foldAll(cutoff: number): Promise<number> {
    const started = performance.now()
    let total = 0
    while (!this.stopped) {
      const { folded, busy } = await this.usage.fold(cutoff, this.batchRows)
      total += folded
      if (busy || folded < this.batchRows) break // another instance is folding, or nothing older is left
      await Bun.sleep(this.pauseMs)
    }
    if (total > 0) {
      this.options.logger.info(
        { rows: total, before: new Date(cutoff).toISOString(), ms: Math.round(performance.now() - started) },
        'folded old usage rows into daily totals',
      )
    }
    return total
  }
}

/** The midnight (UTC) `days` whole days before today's: rows created before it are folded. */
export function foldCutoff(now: number, days: number): number {
  return (Math.floor(now / dayMs) - days) * dayMs
}
