import { readFileSync } from 'node:fs'

/**
 * A SQLite file's WAL, read from its index header (sqlite.org/walformat.html): frames in the WAL, and frames already
 * copied back into the database by a checkpoint. Read without a connection, so looking does not checkpoint.
 */
export function walFrames(database: string): { frames: number; copied: number } {
  const index = readFileSync(`${database}-shm`)
  return { frames: index.readUInt32LE(16), copied: index.readUInt32LE(96) }
}
