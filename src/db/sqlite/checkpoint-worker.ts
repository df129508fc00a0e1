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

function checkpoint(): void {
  try {
    database?.exec('PRAGMA wal_checkpoint(PASSIVE)')
  } catch {
    // Busy or locked for a moment: the next tick tries again, and nothing is lost by waiting.
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
