import type { Logger } from './logger.ts'
import { reportFailure } from './report-failure.ts'

/** A thrown value that says the code is wrong, not that something outside (a database, Redis) failed. */
export function isBug(error: unknown): boolean {
  return error instanceof TypeError || error instanceof RangeError || error instanceof ReferenceError || error instanceof SyntaxError
}

/** The message of a thrown value, for a log line about something outside that failed. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/**
 * Tell the log of a failure once: a bug with its stack (report-failure.ts), anything else (a database or a spool
 * that fails) as its message with what it means for the operator.
 */
export function logFailure(logger: Logger, error: unknown, route: string, fields: Record<string, unknown>, meaning: string): void {
  if (isBug(error)) reportFailure(logger, error, { route })
  else logger.error({ ...fields, err: messageOf(error) }, meaning)
}

/**
 * Failures of work nobody waits on, by job, since the process started: a process-wide count, as a metrics
 * library's default registry is, since what fails (a database, Redis) is the process's however many gateways it runs.
 */
const failureCounts = new Map<string, number>()

/** Count one failure of `job` for /metrics, where the caller logs in its own way. */
export function countBackgroundFailure(job: string): void {
  failureCounts.set(job, (failureCounts.get(job) ?? 0) + 1)
}

/**
 * Work that runs on its own (a heartbeat, a poll, a cleanup, a claim in Redis) and may fail for a while. A failure
 * is logged once when a run of them begins — with its stack when it is a bug, else with what the operator may lose
 * meanwhile — and once when the job works again; every failure is counted on /metrics
 * (`tollgate_background_failures_total{job}`), so one that lasts is seen without reading the log.
 */
export class BackgroundJob {
  private failedInARow = 0

  constructor(
    private readonly logger: Logger,
    readonly name: string,
    private readonly meanwhile: string,
  ) {
    if (!failureCounts.has(name)) failureCounts.set(name, 0)
  }

  failed(error: unknown): void {
    countBackgroundFailure(this.name)
    if (this.failedInARow++ > 0) return
    if (isBug(error)) reportFailure(this.logger, error, { route: this.name })
    else this.logger.warn({ job: this.name, err: messageOf(error) }, `${this.name} failed: ${this.meanwhile}`)
  }

  succeeded(): void {
    if (this.failedInARow === 0) return
    this.logger.info({ job: this.name, failures: this.failedInARow }, `${this.name} works again`)
    this.failedInARow = 0
  }
}

/** The counts in Prometheus's text format. */
export function renderBackgroundFailures(): string {
  if (failureCounts.size === 0) return ''
  const lines = [
    '# HELP tollgate_background_failures_total Failures of work nobody waits on (heartbeats, polls, cleanups, shared state), by job.',
    '# TYPE tollgate_background_failures_total counter',
  ]
  for (const [job, count] of failureCounts) lines.push(`tollgate_background_failures_total{job="${job}"} ${count}`)
  return `${lines.join('\n')}\n`
}
