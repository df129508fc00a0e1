import { closeSync, openSync } from 'node:fs'

/**
 * Create a database file readable by its owner alone (0600): it holds password and key hashes, and SQLite would
 * create it 0644. SQLite gives the -wal, -shm and -journal files it makes later the main file's mode. An existing file
 * is left as it is.
 */
export function createPrivately(path: string): void {
  try {
    closeSync(openSync(path, 'wx', 0o600))
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  }
}
