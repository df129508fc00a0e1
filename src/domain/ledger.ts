import type { Hold, Settlement, UsageRecord } from '../db/records.ts'
import type { LedgerRepository } from '../db/repositories.ts'
import { GatewayError } from '../core/errors.ts'
import { formatUsd } from '../core/money.ts'
import { randomBase62 } from './ids.ts'

export interface LedgerOptions {
  /** How long a finished request may wait before its settlement is written (batching many into one transaction). */
  flushMs?: number
  /** Write at once when this many settlements are waiting. */
  maxBatch?: number
  onError?: (error: unknown) => void
}

/**
 * Holds and settlements. A hold is placed synchronously before a request goes upstream (that is what keeps
 * concurrent requests from overdrawing); settlements are queued and written in batches, each settlement's debit
 * and usage row together in the same transaction. Until its settlement is written a request's hold stays in
 * place, so the balance a concurrent request sees is never too generous.
 */
export class Ledger {
  private queue: Settlement[] = []
  private timer: ReturnType<typeof setTimeout> | undefined
  private flushing: Promise<void> = Promise.resolve()
  private readonly flushMs: number
  private readonly maxBatch: number

  constructor(private readonly repository: LedgerRepository, private readonly options: LedgerOptions = {}) {
    this.flushMs = options.flushMs ?? 5
    this.maxBatch = options.maxBatch ?? 256
  }

  /** Reserve the worst-case cost of a request, or refuse with 403 when the balance cannot cover it. */
  async placeHold(accountId: number, keyId: string, amount: number): Promise<Hold> {
    const hold: Hold = { id: `hold_${randomBase62(16)}`, accountId, keyId, amount, createdAt: Date.now() }
    if (!(await this.repository.placeHold(hold))) {
      throw new GatewayError('insufficient_balance',
        `Insufficient balance: this request may cost up to $${formatUsd(amount)}, more than the account has available. Add credit or lower max_tokens.`,
        { code: 'insufficient_balance' })
    }
    return hold
  }

  /** Queue the end of a request: cost 0 for a failure, which simply releases the hold. */
  settle(hold: Hold, usage: UsageRecord): void {
    this.queue.push({ hold, usage })
    if (this.queue.length >= this.maxBatch) void this.flush()
    else if (this.timer === undefined) {
      this.timer = setTimeout(() => void this.flush(), this.flushMs)
    }
  }

  get pending(): number {
    return this.queue.length
  }

  /** Write everything queued so far; resolves once it is durable (used on shutdown and by tests). */
  flush(): Promise<void> {
    clearTimeout(this.timer)
    this.timer = undefined
    this.flushing = this.flushing.then(() => this.writeQueued())
    return this.flushing
  }

  private async writeQueued(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch)
      try {
        await this.repository.settle(batch)
      } catch (error) {
        // Put the batch back in front so nothing is lost, and try again later.
        this.queue.unshift(...batch)
        this.options.onError?.(error)
        this.timer ??= setTimeout(() => void this.flush(), 1000)
        return
      }
    }
  }
}
