import { Database } from 'bun:sqlite'
import { existsSync, mkdirSync, rmSync } from 'node:fs'
import { createPrivately } from './private-file.ts'
import { dirname, resolve } from 'node:path'

/**
 * `tollgate backup FILE`: a consistent snapshot of a live SQLite database with `VACUUM INTO`, which reads one
 * transaction's view (WAL: a running `serve` keeps writing meanwhile) and writes a compact, standalone file — no -wal
 * beside it to forget. The copy holds key hashes and the ledger, so only its owner may read it. Returns its path.
 */
export function backupSqlite(source: string, target: string): string {
  const path = resolve(target)
  if (existsSync(path)) throw new BackupError(`${path} already exists; a backup never overwrites a file (choose a new name)`)
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
  // Made empty and 0600 first (VACUUM INTO writes into an empty file): created by SQLite it was 0644 while written.
  createPrivately(path)
  const client = new Database(source, { readwrite: true, create: false })
  try {
    client.exec('PRAGMA busy_timeout = 5000')
    client.query('VACUUM INTO ?').run(path)
  } catch (error) {
    rmSync(path, { force: true })
    throw error
  } finally {
    client.close()
  }
  return path
}

export class BackupError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'BackupError'
  }
}
