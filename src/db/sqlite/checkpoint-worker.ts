/**
 * The checkpoint thread's entry (checkpointer.ts starts it): every few hundred milliseconds (up to a second on an idle
 * server), copy what the WAL holds back into the database file from a connection of its own. PASSIVE never waits for
 * readers or writers, so the gateway's connections are never held up by it. `bun build --compile` needs this file as
 * an entrypoint of its own (package.json).
 */
import { Database } from 'bun:sqlite'

declare const self: Worker

export interface CheckpointStart {
  path: string
  intervalMs: number
}

let database: Database | undefined
let timer: ReturnType<typeof setTimeout> | undefined
let intervalMs = 250
/** The wait before the next round: `intervalMs` while commits come, doubled up to `idleMs` while none does. */
let waitMs = 250

/**
 * The longest wait between two rounds of an idle server: each round wakes this thread (its own JS VM) for ~1 ms of
 * CPU a second at 4 rounds a second with nothing to copy. The first commits after a quiet spell wait at most this
 * long for their checkpoint; the rounds are back to `intervalMs` from the next one.
 */
const idleMs = 1000

/** `PRAGMA data_version` when the WAL was last found all copied back: until another connection commits, nothing to do. */
let copiedAt: number | undefined

/** One round: true when there was something to copy back (or it could not be told). */
function checkpoint(): boolean {
  if (!database) return false
  try {
    // An idle server's WAL has nothing new: data_version (read from shared memory) changes only when another
    // connection commits, so an unchanged one after a complete checkpoint skips the checkpoint's own work.
    const version = database.query<{ data_version: number }, []>('PRAGMA data_version').get()!.data_version
    if (version === copiedAt) return false
    const [busy, frames, copied] = database.query<unknown, []>('PRAGMA wal_checkpoint(PASSIVE)').values()[0] as number[]
    copiedAt = busy === 0 && frames === copied ? version : undefined
  } catch {
    // Busy or locked for a moment: the next round tries again, and nothing is lost by waiting.
    copiedAt = undefined
  }
  return true
}

function round(): void {
  waitMs = checkpoint() ? intervalMs : Math.min(waitMs * 2, Math.max(idleMs, intervalMs))
  timer = setTimeout(round, waitMs)
}

self.onmessage = (event: MessageEvent<CheckpointStart | 'stop'>) => {
  if (event.data === 'stop') {
    clearTimeout(timer)
    checkpoint()
    database?.close()
    database = undefined
    self.postMessage('stopped')
    return
  }
  database = new Database(event.data.path)
  database.exec('PRAGMA busy_timeout = 1000')
  intervalMs = waitMs = event.data.intervalMs
  timer = setTimeout(round, waitMs)
}
