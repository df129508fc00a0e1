import { afterAll, beforeAll, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Logger } from '../src/core/logger.ts'
import { KeyCache } from '../src/domain/key-cache.ts'
import { openStore } from '../src/db/open.ts'
import { startTestGateway, type TestGateway } from './support/gateway.ts'

/**
 * ISSUE 22: a key poll that failed was swallowed, so a revocation could silently stop spreading. A failing streak is
 * logged once (with the stack when it is the gateway's own bug), its end too, and `/metrics` shows how stale the keys
 * are. The store fails for real: the keys table is renamed away under the running gateway, then back.
 */
const lines: { level: string; message: string; fields: Record<string, unknown> }[] = []
const logger: Logger = {
  info: (fields, message) => lines.push({ level: 'info', message, fields }),
  warn: (fields, message) => lines.push({ level: 'warn', message, fields }),
  error: (fields, message) => lines.push({ level: 'error', message, fields }),
}
let gateway: TestGateway
let path = ''

beforeAll(async () => {
  path = join(mkdtempSync(join(tmpdir(), 'tollgate-key-poll-')), 'tollgate.db')
  gateway = await startTestGateway({ databasePath: path, logger })
})
afterAll(() => gateway.stop())

async function metric(name: string): Promise<number> {
  const text = await (await fetch(`${gateway.url}/metrics`)).text()
  return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1])
}

test('polls failing while the store refuses: logged once, staleness on /metrics grows; the recovery is logged and staleness drops', async () => {
  expect(await metric('tollgate_key_cache_stale_seconds')).toBeLessThan(1)
  const other = new Database(path)
  other.exec('PRAGMA busy_timeout = 5000')
  other.exec('ALTER TABLE api_keys RENAME TO api_keys_away')
  await Bun.sleep(1800) // three polls or so, each failing
  const failed = lines.filter((line) => line.message.startsWith('key polling failed'))
  expect(failed.length).toBe(1)
  expect(failed[0]!.level).toBe('warn')
  expect(String(failed[0]!.fields.err)).toContain('api_keys')
  expect(await metric('tollgate_key_cache_stale_seconds')).toBeGreaterThan(1.2)
  expect(await metric('tollgate_key_poll_failures_total')).toBeGreaterThanOrEqual(2)

  other.exec('ALTER TABLE api_keys_away RENAME TO api_keys')
  other.close()
  await Bun.sleep(700)
  expect(lines.filter((line) => line.message.startsWith('key polling works again')).length).toBe(1)
  expect(await metric('tollgate_key_cache_stale_seconds')).toBeLessThan(1)
  expect(lines.filter((line) => line.message.startsWith('key polling failed')).length).toBe(1)
})

test("a poll that fails on the gateway's own bug is logged once with its stack", async () => {
  const store = openStore(`sqlite:${join(mkdtempSync(join(tmpdir(), 'tollgate-key-bug-')), 'keys.db')}`, { create: true })
  await store.migrate()
  // After the read at start, a repository answering what no store should (a missing record): remembering it is a
  // TypeError in the cache.
  let reads = 0
  const broken = {
    ...store.keys,
    changedSince: async (since: number) => (reads++ === 0 ? store.keys.changedSince(since) : [undefined as never]),
  }
  const errors: Record<string, unknown>[] = []
  const cache = new KeyCache(broken, { pollMs: 20, logger: { ...logger, error: (fields) => errors.push(fields) } })
  await cache.start()
  await Bun.sleep(150)
  cache.stop()
  expect(errors.length).toBe(1)
  expect(errors[0]).toMatchObject({ route: 'key polling', error: 'TypeError', stack: expect.stringContaining('key-cache.ts') })
  expect(cache.pollFailures).toBeGreaterThan(2)
  await store.close()
})
