import { countBackgroundFailure, isBug, logFailure } from '../core/background-failures.ts'
import type { LedgerWrite } from './records.ts'
import type { LedgerRepository, WriteOptions } from './repositories.ts'
import type { BillSpool } from './bill-spool.ts'
import type { Logger } from '../core/logger.ts'
import { randomBase62 } from '../core/ids.ts'
import { UnwrittenWrites } from './unwritten-writes.ts'
import { overdue, withinDeadline } from './within-deadline.ts'

export interface WriterOptions {
  /** How long writes nobody waits for (lease releases, refusal rows) may wait to share a transaction. */
  flushMs: number
  /** Write at once when this many entries are waiting. */
  maxBatch: number
  /** How long an answer waits for its bill's commit before the bill goes to the spool instead. */
  writeTimeoutMs: number
  /** How often an unreachable database is asked again. */
  probeMs: number
  spool?: BillSpool
  logger?: Logger
  /** A failure that is not the database's absence (a bug, a spool file that cannot be read). */
  onError?: (error: unknown) => void
  /**
   * Told of each batch once it is committed (alerts watch balances so: domain/alerts). Called synchronously after the
   * commit, off every request's path; it must only note what it needs and return.
   */
  onWritten?: (batch: readonly LedgerWrite[]) => void
}

/** Batches a write failed for, written again as they were (`id` makes a second commit of releases a no-op). */
interface Retry {
  id: string | undefined
  writes: LedgerWrite[]
  /** Without a spool, the answers waiting for the bills in it. */
  commit?: PromiseWithResolvers<void>
}

/**
 * The ledger's writes: group-committed settlements, batched releases and refusal rows, and what becomes of them when
 * the database does not answer.
 *
 * A bill is durable once committed **or** appended and synced to the spool. A settlement's answer waits for the next
 * transaction; if it has not committed within `writeTimeoutMs` (or failed sooner), its bills go to the spool and the
 * answer goes on. From then until a probe (every `probeMs`) finds the database answering again, bills go straight to
 * the spool and releases and refusal rows wait in memory; then everything waiting is written and the spool replayed.
 * Writing twice is harmless — bills are skipped by request id, release batches by their id — so a write that
 * commits after its deadline and the replay of its bills never count twice.
 */
export class LedgerWriter {
  /** Whether the database answers: false from a failed or overdue write until a probe succeeds. */
  up = true
  /** Times the database was found unreachable since start. */
  outages = 0
  private queue: LedgerWrite[] = []
  private retries: Retry[] = []
  private timer: ReturnType<typeof setTimeout> | undefined
  /** The next flush, as soon as the event loop has handled what is ready: settlements wait for it (group commit). */
  private soon: ReturnType<typeof setImmediate> | undefined
  private probe: ReturnType<typeof setInterval> | undefined
  private probing = false
  /** Resolved when what is queued now is durable: one promise per batch, shared by all of its settlements. */
  private commit: PromiseWithResolvers<void> | undefined
  private flushing: Promise<void> = Promise.resolve()
  /** Refusal rows and lease releases not written yet (ledger.ts decides by them). */
  readonly unwritten = new UnwrittenWrites()

  constructor(
    private readonly repository: LedgerRepository,
    private readonly options: WriterOptions,
  ) {}

  /** Queue a settlement; resolves once its bill is durable (group commit: it shares the next transaction). */
  settle(write: LedgerWrite): Promise<void> {
    this.queue.push(write)
    const commit = (this.commit ??= Promise.withResolvers<void>())
    if (this.queue.length >= this.options.maxBatch) void this.flush()
    else this.soon ??= setImmediate(flushSoon, this)
    return commit.promise
  }

  /** Queue what nobody waits for: it rides the next batch, at most `flushMs` later. */
  enqueue(write: LedgerWrite): void {
    this.unwritten.queued(write)
    this.queue.push(write)
    if (this.queue.length >= this.options.maxBatch) void this.flush()
    else this.timer ??= setTimeout(() => void this.flush(), this.options.flushMs)
  }

  get pending(): number {
    return this.queue.length + this.retries.reduce((sum, retry) => sum + retry.writes.length, 0)
  }

  /** Write everything queued so far; resolves once it is durable (or set aside while the database is away). */
  flush(): Promise<void> {
    clearTimeout(this.timer)
    this.timer = undefined
    clearImmediate(this.soon)
    this.soon = undefined
    if (this.writeAtOnce()) return alreadyWritten
    return this.serialize(this.writeQueuedTask)
  }

  /**
   * The usual flush on SQLite, whose commit is synchronous: with nothing else in flight or to retry, the queue is
   * written here and now, without the promise chain and the two async frames of `writeQueued` (~10 objects a bill
   * committed alone, bench/census.ts). A write that throws was rolled back: the usual path tries it again.
   */
  private writeAtOnce(): boolean {
    const { repository, queue } = this
    const idle = this.up && this.retries.length === 0 && Bun.peek.status(this.flushing) !== 'pending'
    if (!repository.writeNow || !idle || queue.length > this.options.maxBatch) return false
    const id = queue.some(isRelease) ? `batch_${randomBase62(16)}` : undefined
    try {
      repository.writeNow(queue, id === undefined ? undefined : { batchId: id })
    } catch {
      return false
    }
    const commit = this.commit
    this.queue = []
    this.commit = undefined
    this.written(queue)
    commit?.resolve()
    return true
  }

  /** Run `task` after the writes queued before it and before those queued after it (ledger.ts re-reserves leases so). */
  serialize(task: () => Promise<unknown>): Promise<void> {
    // A task that throws (a bug, a spool file that cannot be read) is reported and must not stop every later write.
    this.flushing = this.flushing.then(task).then(nothing, this.failed)
    return this.flushing
  }

  // Made once, not per flush: at 400 requests/s each request is a flush of its own (bench/census.ts).
  private readonly writeQueuedTask = () => this.writeQueued()
  private readonly failed = (error: unknown) => this.options.onError?.(error)

  /**
   * Replay the spool's bills into the database, a batch at a time between the usual writes; resolves once none is
   * left, or the database stopped answering.
   */
  async replay(): Promise<void> {
    let more = this.options.spool !== undefined
    while (more && this.up) await this.serialize(async () => (more = await this.replayBatch()))
  }

  private async writeQueued(): Promise<void> {
    // Only what is queued now: settlements made while these writes are in flight wait for their own flush. Writing
    // them at once would turn one batch into a trickle of small ones behind an asynchronous repository (a worker
    // thread, a network round trip): measured 106 rows per batch instead of ~310 at 15 000 settlements/s (2026-11-23).
    const due = this.queue.splice(0)
    const commit = this.commit
    this.commit = undefined
    let durable = true
    if (this.up && this.retries.length) await this.writeRetries() // not an await a flush when nothing waits
    for (let start = 0; start < due.length; start += this.options.maxBatch) {
      const batch = due.length <= this.options.maxBatch ? due : due.slice(start, start + this.options.maxBatch)
      const id = batch.some(isRelease) ? `batch_${randomBase62(16)}` : undefined
      if (this.up && (await this.attempt(batch, { batchId: id }))) this.written(batch)
      else if (!(await this.setAside(batch, id, commit))) durable = false
    }
    if (durable) commit?.resolve()
  }

  /** Write one batch under the deadline; false (and the database marked unreachable) when it failed or is late. */
  private async attempt(batch: LedgerWrite[], options: WriteOptions): Promise<boolean> {
    try {
      if ((await withinDeadline(this.repository.write(batch, options), this.options.writeTimeoutMs)) !== overdue) return true
      this.markDown(new Error(`a ledger write took more than ${this.options.writeTimeoutMs} ms`))
    } catch (error) {
      this.markDown(error)
    }
    return false
  }

  /**
   * A batch the database did not take: its bills to the spool (then they are durable: true), the rest kept to be
   * written again once the database answers. Without a spool (or a spool that fails) the bills are kept too, and
   * their answers wait for that (false).
   */
  private async setAside(batch: LedgerWrite[], id: string | undefined, commit: PromiseWithResolvers<void> | undefined): Promise<boolean> {
    const { spool } = this.options
    const bills = batch.filter((write) => write.kind === 'settle')
    if (spool && bills.length) {
      try {
        await spool.append(bills)
        const rest = batch.filter((write) => write.kind !== 'settle')
        if (rest.length) this.retries.push({ id, writes: rest })
        return true
      } catch (error) {
        countBackgroundFailure('bill spool write')
        if (this.options.logger)
          logFailure(
            this.options.logger,
            error,
            'bill spool',
            { bills: bills.length },
            'the bill spool could not be written; the bills wait in memory',
          )
      }
    }
    this.retries.push({ id, writes: batch, commit: bills.length ? commit : undefined })
    return bills.length === 0
  }

  private async writeRetries(): Promise<void> {
    while (this.up && this.retries.length) {
      const retry = this.retries[0]!
      // Its first write may have committed after all (late, or its answer lost): what is there is skipped.
      if (!(await this.attempt(retry.writes, { batchId: retry.id, replay: true }))) return
      this.retries.shift()
      this.written(retry.writes)
      retry.commit?.resolve()
    }
  }

  private written(batch: LedgerWrite[]): void {
    this.unwritten.written(batch)
    this.told(batch)
  }

  private told(batch: LedgerWrite[]): void {
    try {
      this.options.onWritten?.(batch)
    } catch (error) {
      this.options.onError?.(error) // a listener's fault never undoes, or stops, the writes
    }
  }

  /** One batch of the spool written; false when none was left or the write failed. */
  private async replayBatch(): Promise<boolean> {
    const next = this.up ? await this.options.spool!.next(this.options.maxBatch) : undefined
    if (!next || !(await this.attempt(next.bills, { replay: true }))) return false
    this.told(next.bills)
    await next.done()
    return true
  }

  /** The database did not answer: say so once, and ask it again every `probeMs`. */
  markDown(error: unknown): void {
    if (!this.up) return
    this.up = false
    this.outages++
    if (this.options.logger) {
      logFailure(
        this.options.logger,
        error,
        'ledger',
        {},
        'the database does not answer: bills go to the spool, requests beyond the leases are refused (503) until it does',
      )
    }
    this.probe = setInterval(() => void this.tryAgain(), this.options.probeMs)
    this.probe.unref?.()
  }

  private async tryAgain(): Promise<void> {
    if (this.probing) return
    this.probing = true
    try {
      if ((await withinDeadline(this.repository.ping(), this.options.writeTimeoutMs)) === overdue) return
      clearInterval(this.probe)
      this.up = true
      this.options.logger?.info({ spooled: this.options.spool?.stats().entries ?? 0 }, 'the database answers again: writing what waited')
      void this.flush()
      void this.replay()
    } catch (error) {
      // Still away: the next probe asks again. A bug in the probe is not an outage: told, with its stack.
      if (isBug(error)) this.options.onError?.(error)
    } finally {
      this.probing = false
    }
  }

  /** Stop asking an unreachable database (the gateway is stopping). */
  stop(): void {
    clearInterval(this.probe)
  }
}

const alreadyWritten = Promise.resolve()

function flushSoon(writer: LedgerWriter): void {
  void writer.flush()
}

function nothing(): void {}

function isRelease(write: LedgerWrite): boolean {
  return write.kind === 'release'
}
