import type { Config } from '../config/types.ts'
import { GatewayError } from '../core/errors.ts'
import { randomBase62 } from '../core/ids.ts'
import type { Logger } from '../core/logger.ts'
import { reportFailure } from '../core/report-failure.ts'
import { keyStatus } from '../domain/keys.ts'
import type { KeyRecord, UsageRecord } from '../domain/records.ts'
import type { KeyRepository } from '../domain/repositories.ts'
import type { ItemOutcome, TaskKind, TaskRecord } from '../domain/tasks/records.ts'
import type { ClaimedItem } from '../domain/tasks/repository.ts'
import { finalStatusOf, itemErrorOf, recoveredOutcome } from '../domain/tasks/rules.ts'
import type { TaskService } from '../domain/tasks/service.ts'
import type { BatchItemCodec } from '../protocols/shared/batch-item.ts'
import { AbortScope } from '../relay/abort-scope.ts'
import type { Relay } from '../relay/relay.ts'
import { ItemEnds } from './item-ends.ts'
import { RunnerTurns } from './runner-turns.ts'

export interface RunnerDeps {
  tasks: TaskService
  /** The batch relay: the live one's limits and routes, priced at the models' batch prices (batch-relay.ts). */
  relay: Relay
  keys: KeyRepository
  codecs: Record<TaskKind, BatchItemCodec>
  config: Config['tasks']
  logger: Logger
  /** SQLite: one server per file, so any item running under another owner at start is a crash's orphan. */
  singleServer: boolean
  pollMs?: number
  leaseMs?: number
}

const retentionSweepMs = 3600_000
const serialMs = 30_000

/**
 * Runs batch items through the relay, `config.concurrency` at a time and `config.perAccount` per account, so batch
 * work never takes every upstream slot from live traffic. An item is claimed in the database (owner + lease, renewed
 * while it runs), billed by the relay like a live request under the item's id, and its result stored only once its
 * bill is committed; its answer is staged before that, so after a crash an item is either billed and stored from the
 * stage, or never billed and run again — never run twice, never billed twice (domain/tasks/rules.ts recoveredOutcome).
 */
export class TaskRunner {
  readonly owner = `runner_${randomBase62(16)}`
  private readonly ends: ItemEnds
  private readonly running = new Set<Promise<void>>()
  private readonly perAccount = new Map<number, number>()
  /** Accounts whose balance covers one item's hold at a time: until then, one item at a time. */
  private readonly serialUntil = new Map<number, number>()
  private readonly keyCache = new Map<string, { key: KeyRecord | undefined; at: number }>()
  private leaseTimer: ReturnType<typeof setInterval> | undefined
  private stopping = false
  private lastPurge = 0
  private readonly turns: RunnerTurns
  private readonly leaseMs: number

  constructor(private readonly deps: RunnerDeps) {
    this.leaseMs = deps.leaseMs ?? 60_000
    this.ends = new ItemEnds(deps.tasks.repository, this.owner)
    const reportTurnFailure = (error: unknown) => void reportFailure(this.deps.logger, error, { route: 'tasks' })
    this.turns = new RunnerTurns((sweep) => this.tick(sweep), reportTurnFailure, deps.pollMs ?? 250)
  }

  async start(): Promise<void> {
    await this.recover(true)
    this.leaseTimer = setInterval(() => void this.renew(), this.leaseMs / 3)
    this.leaseTimer.unref?.()
    this.deps.tasks.onWork = () => this.turns.wake()
    this.turns.start()
  }

  /** Stop starting items; wait up to `drainMs` for those running (each still settles), then end them. */
  async stop(drainMs: number): Promise<void> {
    this.stopping = true
    this.turns.stop()
    clearInterval(this.leaseTimer)
    const drained = Promise.all(this.running)
    let deadline: ReturnType<typeof setTimeout> | undefined
    const late = await Promise.race([
      drained.then(() => false),
      new Promise<boolean>((resolve) => (deadline = setTimeout(resolve, drainMs, true))),
    ])
    clearTimeout(deadline)
    if (late) {
      this.deps.relay.abortInFlight()
      await Promise.race([drained, Bun.sleep(5000)])
    }
  }

  /** One turn: with `sweep` (a poll's), the housekeeping first; then the items there is room for. */
  private async tick(sweep: boolean): Promise<void> {
    if (this.stopping) return // a turn scheduled before stop(): the store may be closing
    const { tasks, config } = this.deps
    if (sweep) {
      // An idle store (no task open, no item running anywhere) has nothing to sweep or claim: its poll is one query
      // instead of five and two transactions, and the polls slow down until a wake (runner-turns.ts). Retention
      // still runs on its own schedule.
      const purgeDue = Date.now() - this.lastPurge > retentionSweepMs
      const work = this.running.size > 0 || purgeDue || (await tasks.repository.hasWork())
      this.turns.found(work)
      if (!work) return
      await this.sweep()
    }
    // What there is room for, claimed in one transaction: at most `concurrency` items a turn (items that end within
    // the turn, without I/O, leave room for more, which the next turn takes).
    const room = config.concurrency - this.running.size
    if (this.stopping || room <= 0) return
    const taken = new Map<number, number>()
    const take = (account: number) => {
      const count = (this.perAccount.get(account) ?? 0) + (taken.get(account) ?? 0)
      if (count >= this.limitOf(account)) return false
      taken.set(account, (taken.get(account) ?? 0) + 1)
      return true
    }
    for (const claimed of await tasks.repository.claimItems(this.owner, Date.now(), Date.now() + this.leaseMs, room, take))
      this.launch(claimed)
  }

  /** Items a crash left running, tasks past their window, tasks with nothing left to run, rows past their retention. */
  private async sweep(): Promise<void> {
    const { tasks, config } = this.deps
    const now = Date.now()
    await this.recover(false)
    await tasks.repository.expireDue(now)
    for (const task of await tasks.repository.finishableTasks()) await this.finalize(task)
    if (now - this.lastPurge > retentionSweepMs) {
      this.lastPurge = now
      const purged = await tasks.repository.purge(now - config.retentionDays * 86_400_000, now)
      if (purged.tasks || purged.files) this.deps.logger.info(purged, 'deleted tasks and files past their retention')
    }
  }

  private limitOf(account: number): number {
    const until = this.serialUntil.get(account)
    if (until === undefined) return this.deps.config.perAccount
    if (until > Date.now()) return 1
    this.serialUntil.delete(account)
    return this.deps.config.perAccount
  }

  private launch(claimed: ClaimedItem): void {
    const account = claimed.task.accountId
    this.perAccount.set(account, (this.perAccount.get(account) ?? 0) + 1)
    const run = this.runItem(claimed)
      .catch((error) => void reportFailure(this.deps.logger, error, { request_id: claimed.item.id, route: 'tasks' }))
      .finally(() => {
        this.running.delete(run)
        const left = (this.perAccount.get(account) ?? 1) - 1
        if (left > 0) this.perAccount.set(account, left)
        else this.perAccount.delete(account)
        this.turns.wake()
      })
    this.running.add(run)
  }

  private async runItem({ item, task }: ClaimedItem): Promise<void> {
    const { repository } = this.deps.tasks
    const finish = (outcome: Omit<ItemOutcome, 'at'>) => this.ends.finish(item.id, { ...outcome, at: Date.now() })
    const failWith = (error: GatewayError, cost = 0) =>
      finish({ status: 'errored', statusCode: error.status, result: JSON.stringify(itemErrorOf(error)), cost })
    let key: KeyRecord
    let decoded
    try {
      key = await this.keyOf(task.keyId)
      decoded = this.deps.codecs[task.kind].decode(item.body, task, item.id)
    } catch (error) {
      // A bug is logged once with its stack (an item's own mistake, a GatewayError, is only its result).
      await failWith(reportFailure(this.deps.logger, error, { request_id: item.id, route: 'tasks' }))
      return
    }
    decoded.exchange.request.stream = false
    const { exchange } = decoded
    let billed: { usage: UsageRecord; committed: Promise<void> } | undefined
    let staged: Promise<void> | undefined
    const owner = this.owner
    try {
      const result = await this.deps.relay.run({
        key,
        protocol: decoded.protocol,
        operation: decoded.operation,
        requestId: item.id,
        request: exchange.request,
        inputBound: decoded.inputBound,
        scope: new AbortScope(),
        // No `forward`: every answer is encoded here, so it can be staged before its bill commits.
        codec: {
          encodeWhole(answer) {
            const body = exchange.encodeWhole(answer)
            staged = repository.stageResult(item.id, owner, body)
            return body
          },
        },
        onBilled(usage, committed) {
          billed = { usage, committed }
        },
      })
      await staged
      if (result.kind !== 'whole') throw new GatewayError('internal', 'A batch item was answered as a stream')
      await finish({ status: 'succeeded', statusCode: 200, result: result.body, cost: billed?.usage.cost ?? 0 })
    } catch (error) {
      // Logged once with its stack when it is the gateway's own fault (the relay may have logged it already).
      const failure = reportFailure(this.deps.logger, error, { request_id: item.id, route: 'tasks' })
      // Refused by the key's own rate limits before anything was held or billed: try again once there is room.
      if (!billed && failure.kind === 'rate_limit' && failure.rateLimit !== undefined) {
        await repository.deferItem(item.id, this.owner, Date.now() + Math.max(1, failure.retryAfter ?? 1) * 1000)
        return
      }
      // Refused for money while this account's other items hold theirs: try again once they have settled, so a
      // balance that covers one item at a time is not refused for running two.
      // The account then runs one item at a time for a while (a low balance), so it is not refused again and again.
      if (!billed && failure.kind === 'insufficient_balance' && (this.perAccount.get(task.accountId) ?? 0) > 1) {
        this.serialUntil.set(task.accountId, Date.now() + serialMs)
        await repository.deferItem(item.id, this.owner, Date.now())
        return
      }
      if (billed) await billed.committed
      await failWith(failure, billed?.usage.cost ?? 0)
    }
  }

  /** The submitting key as it stands now (revoked or expired since: its items fail with 401). */
  private async keyOf(id: string): Promise<KeyRecord> {
    const cached = this.keyCache.get(id)
    let key = cached && Date.now() - cached.at < 1000 ? cached.key : undefined
    if (!key) {
      key = await this.deps.keys.findById(id)
      this.keyCache.set(id, { key, at: Date.now() })
    }
    const status = key ? keyStatus(key) : 'revoked'
    if (!key || status !== 'active')
      throw new GatewayError(
        'authentication',
        `The API key that submitted this batch is ${status === 'expired' ? 'expired' : 'revoked'}.`,
        { code: status === 'expired' ? 'expired_api_key' : 'revoked_api_key' },
      )
    return key
  }

  /** Items a crash (or a stalled instance) left running: billed ones end from their stage, the others run again. */
  private async recover(atStart: boolean): Promise<void> {
    const { repository } = this.deps.tasks
    const now = Date.now()
    const orphans = await repository.adoptOrphans(this.owner, now, now + this.leaseMs, atStart && this.deps.singleServer)
    for (const orphan of orphans) {
      const outcome = recoveredOutcome(orphan, now)
      if (outcome) await this.ends.finish(orphan.item.id, outcome)
      else await repository.requeueItem(orphan.item.id, this.owner)
    }
    if (orphans.length) this.deps.logger.warn({ items: orphans.length }, 'recovered batch items left running by a crash')
  }

  private async renew(): Promise<void> {
    try {
      await this.deps.tasks.repository.renewLeases(this.owner, Date.now() + this.leaseMs)
    } catch (error) {
      reportFailure(this.deps.logger, error, { route: 'tasks' })
    }
  }

  private async finalize(task: TaskRecord): Promise<void> {
    const files = await this.deps.codecs[task.kind].finalize?.(task, this.deps.tasks)
    await this.deps.tasks.repository.finalizeTask(task.id, finalStatusOf(task), Date.now(), files)
  }
}
