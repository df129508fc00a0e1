import type { LedgerWrite } from './records.ts'

/** What waits in a spool, for `/metrics`. */
export interface SpoolStats {
  entries: number
  bytes: number
  /** `createdAt` of the oldest bill waiting (epoch ms), undefined when none does. */
  oldestAt: number | undefined
}

/**
 * Where bills wait while the database cannot take them: a file of this instance's (db/bill-spool.ts), appended and
 * synced to disk before an answer's last bytes go out, and replayed into the database once it is back — or by the
 * next start, after a crash. Replaying is safe twice: a bill whose usage row exists is skipped (LedgerRepository).
 */
export interface BillSpool {
  /** Append settlements; resolves once they are on disk (synced). */
  append(bills: LedgerWrite[]): Promise<void>
  /** The oldest bills not replayed yet, at most `limit`, or undefined when none wait; `done()` forgets them. */
  next(limit: number): Promise<{ bills: LedgerWrite[]; done(): Promise<void> } | undefined>
  stats(): SpoolStats
}
