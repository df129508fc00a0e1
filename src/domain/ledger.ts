import { isBug } from '../core/background-failures.ts'
import type { Hold, LedgerWrite, UsageRecord } from './records.ts'
import type { LedgerRepository } from './repositories.ts'
import type { BillSpool, SpoolStats } from './bill-spool.ts'
import type { Logger } from '../core/logger.ts'
import { GatewayError } from '../core/errors.ts'
import { formatUsd } from '../core/money.ts'
import { carve, type LeaseTerm } from './lease.ts'
import { type GovernedKey, Leases } from './leases.ts'
import { budgetExceeded } from './budgets/refusal.ts'
import { LedgerWriter } from './ledger-writer.ts'
import { overdue, withinDeadline } from './within-deadline.ts'
import { sanitizeCounts } from './usage-counts.ts'

export interface LedgerOptions {
  /** How long writes nobody waits for (lease releases, refusal rows) may wait to share a transaction; settlements are group-committed at once. */
  flushMs?: number
  /** Write at once when this many entries are waiting. */
  maxBatch?: number
  /** A lease grows by at least this many times the hold that made it grow, so the next requests need no write. */
  leaseFactor?: number
  /** An unused lease goes back to the account after this long. */
  leaseIdleMs?: number
  /** The longest an answer waits for its bill's commit, and a request for its reservation, before the database counts as unreachable. */
  writeTimeoutMs?: number
  /** How often an unreachable database is asked again. */
  probeMs?: number
  /** Where bills wait while the database is unreachable; without one, answers wait for the database. */
  spool?: BillSpool
  logger?: Logger
  /** A failure that is not the database's absence (a bug, a spool file that cannot be read). */
  onError?: (error: unknown) => void
  /** Told of each batch of settlements and releases once committed (ledger-writer.ts). */
  onWritten?: (batch: readonly LedgerWrite[]) => void
}

/**
 * Holds and settlements, with no database I/O on a typical request.
 *
 * Each account gets a *lease*: a hold row in the database, reserved atomically against the balance like any hold,
 * but sized for many requests. A request's hold is carved out of the lease in memory; when the lease cannot cover
 * it, the lease grows (one transaction) or the request is refused with 403. Because every request's worst case is
 * inside a lease and every lease is inside the balance, concurrent requests — in this process or any other sharing
 * the database — can never overdraw it.
 *
 * A settlement moves the request's actual cost out of the balance and out of the lease, and writes its usage row:
 * queued, then written in batches, each settlement's debit and usage row in the same transaction (ledger-writer.ts:
 * durable means committed, or synced to the spool while the database is away). A request is never charged more than
 * its hold (its worst case). An idle lease is given back after `leaseIdleMs`; a crash leaves hold rows that the next
 * start releases.
 *
 * A lease is carved from only while its term says no other instance can have released it (lease.ts). A process that
 * finds it was declared gone retires every lease (leases.ts): new requests reserve anew, and each request in flight
 * has its hold reserved again, so its bill still shrinks a hold that exists — nothing is released twice.
 *
 * A key with a budget gets a lease of its own, reserved against both the balance and the key's unspent budget, so
 * `spent + reserved ≤ budget` holds in the database the same way `reserved ≤ balance` does.
 */
export class Ledger {
  private readonly leases: Leases
  private readonly writer: LedgerWriter
  private readonly term: LeaseTerm | undefined
  private readonly leaseFactor: number
  private readonly writeTimeoutMs: number
  /** Refusal rows not written because too many were waiting (the database failing under a flood). */
  droppedRefusals = 0
  /** Times this process found it had been declared gone by another instance (PostgreSQL). */
  losses = 0

  constructor(
    repository: LedgerRepository,
    private readonly options: LedgerOptions = {},
  ) {
    // Settlements are written by group commit (`settle` schedules the next flush as soon as the event loop has
    // handled what is ready, and the answer's last bytes wait for it), so a crash never loses the bill of an answer a
    // client received in full. What nobody waits for — lease releases, refusal rows — waits up to `flushMs` to share
    // a transaction: its fixed cost (UPDATEs, commit, dirtied index pages) is shared by its rows (~30 µs CPU per row
    // in batches of 5, ~9 in batches of 128; interleaved micro-benchmark, 2026-11-23).
    this.writeTimeoutMs = options.writeTimeoutMs ?? 2000
    this.writer = new LedgerWriter(repository, {
      flushMs: options.flushMs ?? 50,
      maxBatch: options.maxBatch ?? 1024,
      writeTimeoutMs: this.writeTimeoutMs,
      probeMs: options.probeMs ?? 500,
      spool: options.spool,
      logger: options.logger,
      onError: options.onError,
      onWritten: options.onWritten,
    })
    this.leaseFactor = options.leaseFactor ?? 20
    this.leases = new Leases(repository, this.writer, {
      leaseFactor: this.leaseFactor,
      leaseIdleMs: options.leaseIdleMs ?? 1000,
      writeTimeoutMs: this.writeTimeoutMs,
      logger: options.logger,
    })
    this.term = repository.term
    this.term?.onLost(() => {
      this.losses++
      this.leases.retire()
    })
  }

  /**
   * The usual case of a hold, answered at once (no promise, no async frame, no microtask): a hold carved from a lease
   * that has room for it, or undefined when there is none and `placeHold` must reserve more.
   */
  holdFromLease(
    accountId: number,
    keyId: string,
    amount: number,
    keyBudget: number | null = null,
    governed?: GovernedKey,
  ): Hold | undefined {
    const lease = this.leases.leaseFor(accountId, keyId, keyBudget === null ? undefined : keyId, governed)
    return lease && !lease.growing && lease.amount - lease.used >= amount && this.trusted() ? carve(lease, keyId, amount) : undefined
  }

  /**
   * Reserve the worst-case cost of a request, or refuse with 403 when the balance (or, for a key with a budget,
   * what is left of the budget; with `governed`, of each scheduled budget that applies, in its current period)
   * cannot cover it, or with 503 when it needs the database and the database does not answer.
   */
  async placeHold(
    accountId: number,
    keyId: string,
    amount: number,
    keyBudget: number | null = null,
    governed?: GovernedKey,
  ): Promise<Hold> {
    const budgetKeyId = keyBudget === null ? undefined : keyId
    let reclaims = 0
    let losses = 0
    while (true) {
      if (!this.trusted()) await this.renewTerm()
      let lease = this.leases.leaseFor(accountId, keyId, budgetKeyId, governed)
      if (lease?.growing) {
        await lease.growing
        continue
      }
      if (lease && lease.amount - lease.used >= amount) return carve(lease, keyId, amount)
      if (!this.writer.up) throw databaseUnavailable()
      lease ??= this.leases.leaseFor(accountId, keyId, budgetKeyId, governed, true)
      const need = amount - (lease.amount - lease.used)
      const short = await this.leases.grow(lease, need, Math.max(need, amount * this.leaseFactor))
      if (short === undefined) continue
      // Declared gone while reserving: the leases were retired (leases.ts); start again with a new one.
      if (short === 'gone' && ++losses < maxLosses) continue
      if (short === 'unreachable' || short === 'gone') throw databaseUnavailable()
      // A budget's period ended (or the budget changed) since the lease was made: a new lease, in the new period.
      if (short === 'period') {
        this.leases.end(lease)
        continue
      }
      // The balance (or a budget shared with other keys) may be short only because this account's other leases here
      // took it for later requests: give their unused room back (written at once) and try again. Or because a lease
      // given back here (idle) is still on its way to the database: its release rides a batch up to `flushMs` later,
      // and a request in between saw the money still reserved (a 403 with the balance nearly whole). Bounded: other
      // requests may take the room first.
      const shared = short === 'balance' || (short === 'budget' && lease.shortBy?.budgetId !== undefined)
      const freed = shared && reclaims < maxReclaims ? this.leases.reclaimRoom(accountId, lease) : 0
      if (reclaims < maxReclaims && (freed > 0 || this.writer.unwritten.releasing(accountId))) {
        reclaims++
        await this.flush()
        continue
      }
      if (lease.amount === 0 && lease.used === 0) this.leases.release(lease) // spent to nothing: its empty row goes too
      if (short === 'budget' && lease.shortBy?.budgetId !== undefined) {
        const budget = governed?.budgets?.find((candidate) => candidate.id === lease!.shortBy!.budgetId)
        throw budgetExceeded(amount, budget, lease.shortBy.resetsAt, governed)
      }
      throw short === 'budget'
        ? new GatewayError(
            'insufficient_balance',
            `Budget exceeded: this request may cost up to $${formatUsd(amount)}, more than is left of this API key's $${formatUsd(keyBudget!)} budget.`,
            { code: 'budget_exceeded' },
          )
        : new GatewayError(
            'insufficient_balance',
            `Insufficient balance: this request may cost up to $${formatUsd(amount)}, more than the account has available. Add credit or lower max_tokens.`,
            { code: 'insufficient_balance' },
          )
    }
  }

  /** Whether this process's leases may be carved from without asking the database. */
  private trusted(): boolean {
    return this.term === undefined || performance.now() < this.term.trustedUntil
  }

  /** Prove the leases are still this process's (one heartbeat, shared); 503 when the database does not answer in time. */
  private async renewTerm(): Promise<void> {
    try {
      if ((await withinDeadline(this.term!.renew(), this.writeTimeoutMs)) !== overdue) return
    } catch (error) {
      // Unreachable: refused below. A bug in the heartbeat is not an outage: told, with its stack.
      if (isBug(error)) this.options.onError?.(error)
    }
    throw databaseUnavailable()
  }

  /**
   * The end of a request: a failure costs 0, which simply gives its hold back to the lease. Resolves once the debit
   * and the usage row are durable (committed, or synced to the spool), so a caller can hold back the answer's last
   * bytes until then: a crash can never lose the bill of an answer the client received in full. Never throws. A cost
   * that is not a safe integer (a bug upstream of here) bills the hold; token counts that are not non-negative safe
   * integers are stored as 0 and the row flagged estimated — one bad row must not fail, and so block, every batch
   * after it.
   */
  settle(hold: Hold, usage: UsageRecord): Promise<void> {
    const cost = Number.isSafeInteger(usage.cost) ? Math.max(0, Math.min(usage.cost, hold.amount)) : hold.amount
    sanitizeCounts(usage)
    const leaseId = this.leases.settle(hold, cost)
    usage.cost = cost // the record is this request's own, made for this call
    return this.writer.settle({ kind: 'settle', leaseId, usage, budgetKeyId: hold.budgetKeyId, budgetPeriods: hold.budgetPeriods })
  }

  /**
   * The usage row of a request refused before any money was held (cost 0, no balance touched). Queued like a
   * release, not a settlement: nobody waits for it, so it rides the next batch (at most `flushMs` later) and a flood
   * of refusals is a few multi-row INSERTs, never a write each. While writes fail (the rows are kept for the retry),
   * refusals beyond `maxPendingRefusals` are dropped and counted rather than grow memory without end.
   */
  recordRefusal(usage: UsageRecord): void {
    if (this.writer.unwritten.refusals >= maxPendingRefusals) {
      this.droppedRefusals++
      return
    }
    this.writer.enqueue({ kind: 'refusal', usage })
  }

  get pending(): number {
    return this.writer.pending
  }

  /** Whether the database answers, what waits in the spool, and how often this process was declared gone: `/metrics`. */
  health(): { databaseUp: boolean; outages: number; losses: number; spool: SpoolStats | undefined } {
    return { databaseUp: this.writer.up, outages: this.writer.outages, losses: this.losses, spool: this.options.spool?.stats() }
  }

  /** Replay bills the spool holds (a crash left them, or the database was away); resolves when none is left or it fails. */
  replaySpool(): Promise<void> {
    return this.writer.replay()
  }

  /** Give back every idle lease and write everything queued (shutdown; tests that read balances). */
  drain(): Promise<void> {
    this.leases.releaseAll()
    return this.flush()
  }

  /** Write everything queued so far; resolves once it is durable. */
  flush(): Promise<void> {
    return this.writer.flush()
  }

  /** The gateway stops: no more probes of an unreachable database. */
  stop(): void {
    this.writer.stop()
  }
}

function databaseUnavailable(): GatewayError {
  return new GatewayError(
    'upstream_unavailable',
    'The gateway cannot reach its database to reserve money for this request. Try again shortly.',
    { code: 'database_unavailable', retryAfter: 1 },
  )
}

/** Refusal rows that may wait to be written (about 10 MB); more are dropped, and counted, until writes succeed. */
const maxPendingRefusals = 50_000

/** How many times one request may give other leases' room back before it is refused. */
const maxReclaims = 3

/** How many times one request may find its process declared gone before it is refused. */
const maxLosses = 3
