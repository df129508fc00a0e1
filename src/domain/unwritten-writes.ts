import type { LedgerWrite } from './records.ts'

/**
 * What the ledger's writer (ledger-writer.ts) holds that the database does not have yet, queued, in flight or kept
 * for a retry, counted for the ledger's decisions: refusal rows, which beyond a cap are dropped, and lease releases
 * by account, whose money a reservation made meanwhile does not see in the balance (ledger.ts writes them and asks
 * again before refusing for money).
 */
export class UnwrittenWrites {
  /** Refusal rows not written yet. */
  refusals = 0
  private readonly releases = new Map<number, number>()

  /** A write was queued. */
  queued(write: LedgerWrite): void {
    if (write.kind === 'refusal') this.refusals++
    else if (write.kind === 'release') this.releases.set(write.accountId, (this.releases.get(write.accountId) ?? 0) + 1)
  }

  /** A batch was written (committed, or its bills spooled and the rest written on a retry). */
  written(batch: readonly LedgerWrite[]): void {
    for (const write of batch) {
      if (write.kind === 'refusal') this.refusals--
      else if (write.kind === 'release') {
        const left = this.releases.get(write.accountId)! - 1
        if (left > 0) this.releases.set(write.accountId, left)
        else this.releases.delete(write.accountId)
      }
    }
  }

  /** Whether a lease of this account was given back and its money is not in the database's balance yet. */
  releasing(accountId: number): boolean {
    return this.releases.has(accountId)
  }
}
