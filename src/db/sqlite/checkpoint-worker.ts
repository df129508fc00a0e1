/**
 * The checkpoint thread's entry (checkpointer.ts starts it): every few hundred milliseconds, copy what the WAL holds
 * back into the database file from a connection of its own. PASSIVE never waits for readers or writers, so the
 * gateway's connections are never held up by it. `bun build --compile` needs this file as an entrypoint of its own
 * (package.json).
 */
import { Database } from 'bun:sqlite'

declare const self: Worker

export interface CheckpointStart {
  path: string
  intervalMs: number
}

let database: Database | undefined
let timer: ReturnType<typeof setInterval> | undefined

/** `PRAGMA data_version` when the WAL was last found all copied back: until another connection commits, nothing to do. */
let copiedAt: number | undefined

function checkpoint(): void {
  if (!database) return
  try {
    // An idle server's WAL has nothing new: data_version (read from shared memory) changes only when another
    // connection commits, so an unchanged one after a complete checkpoint skips the checkpoint's own work.
    const version = database.query<{ data_version: number }, []>('PRAGMA data_version').get()!.data_version
    if (version === copiedAt) return
    const [busy, frames, copied] = database.query<unknown, []>('PRAGMA wal_checkpoint(PASSIVE)').values()[0] as number[]
    copiedAt = busy === 0 && frames === copied ? version : undefined
  } catch {
    // Busy or locked for a moment: the next tick tries again, and nothing is lost by waiting.
    copiedAt = undefined
  }
}

self.onmessage = (event: MessageEvent<CheckpointStart | 'stop'>) => {
  if (event.data === 'stop') {
    clearInterval(timer)
    checkpoint()
    database?.close()
    database = undefined
    self.postMessage('stopped')
    return
  }
  database = new Database(event.data.path)
  database.exec('PRAGMA busy_timeout = 1000')
  timer = setInterval(checkpoint, event.data.intervalMs)
}
