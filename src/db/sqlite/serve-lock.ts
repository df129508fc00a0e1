import { Database } from 'bun:sqlite'
import { createPrivately } from './private-file.ts'

/** Another process serves from this SQLite file: the CLI prints the message on one line and exits non-zero. */
export class DatabaseInUseError extends Error {
  constructor(readonly path: string) {
    super(
      `the SQLite database ${path} is in use by another running "tollgate serve" (it holds ${lockPathOf(path)}); ` +
        "stop that one first — two servers on one SQLite file would release each other's holds. To run several instances, use PostgreSQL.",
    )
    this.name = 'DatabaseInUseError'
  }
}

function lockPathOf(path: string): string {
  return `${path}.lock`
}

/**
 * One `serve` per SQLite file. Bun has no flock, so the lock is SQLite's own: a small database next to the data file,
 * held in an exclusive transaction that is never committed. SQLite locks with POSIX advisory locks, which the operating
 * system drops when the process ends however it ends — kill -9 included — so a dead server never leaves a stale lock,
 * and the next `serve` may release every hold it finds: their owner is provably gone. The CLI's other commands do
 * not take it: they read and write the data file alongside a running server (WAL).
 *
 * Returns the release (closing the lock's connection), or throws DatabaseInUseError.
 */
export function acquireServeLock(path: string): () => void {
  createPrivately(lockPathOf(path)) // 0600, and so its journal: like every file beside the data
  const lock = new Database(lockPathOf(path), { create: true })
  try {
    lock.exec('PRAGMA busy_timeout = 0')
    lock.exec('BEGIN EXCLUSIVE')
  } catch (error) {
    lock.close()
    if ((error as { code?: string }).code === 'SQLITE_BUSY' || /locked|busy/i.test((error as Error).message))
      throw new DatabaseInUseError(path)
    throw error
  }
  let held = true
  return () => {
    if (!held) return
    held = false
    lock.close()
  }
}
