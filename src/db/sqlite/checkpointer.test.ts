import { expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Database } from 'bun:sqlite'
import { openSqliteStore } from './store.ts'
import { walFrames } from '../../../test/support/wal-frames.ts'

function fill(path: string): void {
  const client = new Database(path)
  client.exec('PRAGMA busy_timeout = 5000')
  client.transaction(() => {
    for (let index = 0; index < 2000; index++) {
      client.query('INSERT INTO accounts (name, created_at) VALUES (?, ?)').run(`account-${index}-${'x'.repeat(200)}`, Date.now())
    }
  })()
  client.close()
}

test('a serving store has its WAL checkpointed by a thread of its own while it runs', async () => {
  const path = join(mkdtempSync(join(tmpdir(), 'tollgate-checkpoint-')), 'serving.db')
  const store = openSqliteStore(path, { serving: true })
  await store.migrate()
  fill(path)
  // The thread copies every frame back within a few of its 250 ms rounds.
  let frames = walFrames(path)
  for (let round = 0; round < 40 && frames.copied < frames.frames; round++) {
    await Bun.sleep(50)
    frames = walFrames(path)
  }
  expect(frames.frames).toBeGreaterThan(100)
  expect(frames.copied).toBe(frames.frames)
  await store.close()
})

test("a CLI store keeps SQLite's own checkpoints: a few hundred frames stay in the WAL", async () => {
  const path = join(mkdtempSync(join(tmpdir(), 'tollgate-checkpoint-')), 'cli.db')
  const store = openSqliteStore(path)
  await store.migrate()
  fill(path)
  await Bun.sleep(600)
  const frames = walFrames(path)
  expect(frames.frames).toBeGreaterThan(100)
  expect(frames.copied).toBe(0)
  await store.close()
})
