import type { Database, Statement } from 'bun:sqlite'
import { BackgroundJob } from '../../core/background-failures.ts'
import { type Logger, silentLogger } from '../../core/logger.ts'
import { usageColumns } from './usage-inserts.ts'

/**
 * Usage rows move from the inbox to the log once this many are waiting, or a second after the first of fewer came
 * (drizzle/sqlite/0019_usage_inbox.sql says why bills go to an inbox). At 400 bills a second that is a move a second;
 * at saturation one every ~50 group commits. The more rows a move takes, the more of a tenant's rows share each index
 * page it writes: with 50 tenants a move of 1024 took ~4 ms of the event loop (3.8 µs a row; 256 rows 4.1–7.3 µs),
 * and `compare.ts --tenants 50` in turns with 256: 22,742 against 21,115 whole answers a second (44.8 against 48.6
 * µs), streamed 16,852 against 15,467; one tenant 26,786 against 26,205 (2026-11-28). A larger inbox would make every
 * read of `usage_records` scan more unindexed rows, and a longer move hold the loop past a paced slice (core/pace.ts).
 */
export const moveRows = 1024
const moveAfterMs = 1000
/**
 * Rows a move commits at a time, as many as a batch of the usage fold. A scheduled move commits one such chunk a turn
 * of the event loop, so an inbox another connection filled (a tool, a test) never holds the loop for long.
 */
export const rowsPerMove = 2000

/**
 * The SQLite ledger's usage inbox: ids for the rows a bill writes there, and the move of waiting rows into the
 * indexed log — each move one transaction that inserts them into `usage_log` and deletes them from `usage_inbox`, so
 * every row is in exactly one of them at every commit. Moves run after commits, off every bill's path: a move that
 * fails (the file busy past the timeout, a full disk) leaves the rows where they are, readable through
 * `usage_records`, and is logged once and tried again a second later.
 */
export class UsageInbox {
  private readonly lastIdStatement: Statement<{ last: number }, []>
  private readonly boundary: Statement<{ id: number }, [number]>
  private readonly newestWaiting: Statement<{ id: number | null }, []>
  private readonly moveUpTo: (id: number) => number
  private readonly job: BackgroundJob
  /** Rows this process put in the inbox since its last move (others' rows are moved with them). */
  private waiting = 0
  private timer: ReturnType<typeof setTimeout> | undefined
  private soon: ReturnType<typeof setImmediate> | undefined

  constructor(client: Database, logger: Logger = silentLogger) {
    this.lastIdStatement = client.prepare(
      'SELECT max(coalesce((SELECT max(id) FROM usage_log), 0), coalesce((SELECT max(id) FROM usage_inbox), 0)) AS last',
    )
    this.boundary = client.prepare('SELECT id FROM usage_inbox ORDER BY id LIMIT 1 OFFSET ?')
    this.newestWaiting = client.prepare('SELECT max(id) AS id FROM usage_inbox')
    const insert = client.prepare(
      `INSERT INTO usage_log (${usageColumns}) SELECT ${usageColumns} FROM usage_inbox WHERE id <= ? ORDER BY id`,
    )
    const remove = client.prepare('DELETE FROM usage_inbox WHERE id <= ?')
    const move = client.transaction((id: number) => {
      insert.run(id)
      return remove.run(id).changes
    })
    this.moveUpTo = (id) => move.immediate(id)
    this.job = new BackgroundJob(logger, 'usage inbox move', 'new usage rows wait in usage_inbox, unindexed, until a move works')
  }

  /** The largest id over both tables: a writing transaction numbers its rows after it (read inside that transaction). */
  lastId(): number {
    return this.lastIdStatement.get()!.last
  }

  /** After a commit that put `rows` into the inbox: a move is due now past `moveRows`, else within a second. */
  added(rows: number): void {
    if (rows === 0) return
    this.waiting += rows
    if (this.waiting >= moveRows) this.soon ??= setImmediate(moveSoon, this)
    else if (!this.timer) {
      this.timer = setTimeout(moveSoon, moveAfterMs, this)
      // An idle process is not kept alive to move a handful of rows: the next start finds them all the same.
      this.timer.unref()
    }
  }

  /** Move the oldest waiting rows, at most `rowsPerMove`, in one transaction; returns how many moved (0: none waited). */
  moveOldest(): number {
    // The rowsPerMove-th oldest row bounds a move; with fewer waiting, the newest does.
    const end = this.boundary.get(rowsPerMove - 1)?.id ?? this.newestWaiting.get()!.id
    return end === null ? 0 : this.moveUpTo(end)
  }

  /**
   * Move every waiting row, a chunk a transaction, without yielding: for a start (before it serves) and a `db copy`.
   * Returns how many moved; throws what the database threw.
   */
  moveAll(): number {
    this.unschedule()
    let moved = 0
    for (let chunk = this.moveOldest(); chunk > 0; chunk = this.moveOldest()) moved += chunk
    return moved
  }

  /**
   * The store closes: what waits is moved now, and no move is scheduled after. A move that fails here is logged; its
   * rows stay readable in the inbox, and the next start moves them.
   */
  close(): void {
    try {
      this.moveAll()
    } catch (error) {
      this.job.failed(error)
    }
  }

  /**
   * A scheduled move: one chunk, and the next in the next turn of the event loop while chunks come full. A failure
   * is logged once and the rows wait for the next try, a second later.
   */
  tryMove(): void {
    this.unschedule()
    try {
      if (this.moveOldest() === rowsPerMove) this.soon = setImmediate(moveSoon, this)
      this.job.succeeded()
    } catch (error) {
      this.job.failed(error)
      this.added(1) // schedules the next try
    }
  }

  private unschedule(): void {
    clearTimeout(this.timer)
    this.timer = undefined
    clearImmediate(this.soon)
    this.soon = undefined
    this.waiting = 0
  }
}

function moveSoon(inbox: UsageInbox): void {
  inbox.tryMove()
}
