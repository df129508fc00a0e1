import { expect, test } from 'bun:test'
import { existsSync, mkdtempSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import OpenAI from 'openai'
import { startTestGateway } from './support/gateway.ts'

/** The SQLite database holds password and key hashes: its files are the owner's alone, whatever the umask. */
test('the SQLite database and its -wal and -shm files are created 0600', async () => {
  const previous = process.umask(0o022)
  try {
    const path = join(mkdtempSync(join(tmpdir(), 'tollgate-modes-')), 'tollgate.db')
    const gateway = await startTestGateway({ databasePath: path })
    try {
      // A request writes usage, so the WAL has something in it.
      const client = new OpenAI({ baseURL: gateway.baseUrl, apiKey: gateway.key, maxRetries: 0 })
      await client.chat.completions.create({ model: 'mock-fast', messages: [{ role: 'user', content: 'hi' }] })
      await gateway.settled()
      for (const file of [path, `${path}-wal`, `${path}-shm`]) {
        expect(existsSync(file)).toBe(true)
        expect((statSync(file).mode & 0o777).toString(8)).toBe('600')
      }
    } finally {
      await gateway.stop()
    }
  } finally {
    process.umask(previous)
  }
})
