/**
 * How fast is one page of the console's request log with a million usage rows?
 *
 *   bun bench/usage-log.ts [ROWS]
 *
 * Fills a temporary SQLite file (the real schema, via the real migrations) with ROWS usage rows spread over
 * 90 days, 20 accounts, 100 keys, 5 models and a realistic status mix, then times the repository's
 * listRequests for the filters the console offers: the first page, and a page reached by keyset paging
 * 200 pages deep. Not run by CI (timings belong in reports, not in assertions).
 */
import { Database } from 'bun:sqlite'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { UsageCursor, UsageFilter } from '../src/domain/records.ts'
import { openSqliteStore } from '../src/db/sqlite/store.ts'
import { UsageInbox } from '../src/db/sqlite/usage-inbox.ts'

const rows = Number(process.argv[2] ?? 1_000_000)
const pageSize = 50
const directory = mkdtempSync(join(tmpdir(), 'tollgate-bench-'))
const path = join(directory, 'usage.db')
const store = openSqliteStore(path)
await store.migrate()

const now = Date.now()
const span = 90 * 86_400_000
const models = ['gpt-big', 'gpt-small', 'claude', 'gemini', 'rare-model']
const modelWeights = [0.4, 0.35, 0.15, 0.0999, 0.0001]

function pickModel(random: number): string {
  let total = 0
  for (let index = 0; index < models.length; index++) {
    total += modelWeights[index]!
    if (random < total) return models[index]!
  }
  return models[0]!
}

function pickStatus(random: number): number {
  if (random < 0.97) return 200
  if (random < 0.985) return 429
  if (random < 0.995) return 400
  return 502
}

const started = performance.now()
const client = new Database(path)
client.exec('PRAGMA journal_mode = WAL')
client.exec('PRAGMA synchronous = OFF')
for (let account = 1; account <= 20; account++)
  client.query('INSERT INTO accounts (name, created_at) VALUES (?, ?)').run(`acct-${account}`, now)
const insert = client.prepare(`INSERT INTO usage_records (request_id, account_id, key_id, model, provider, upstream_model, protocol,
  input_tokens, cached_input_tokens, cache_write_tokens, output_tokens, reasoning_tokens, cost, status, error_type, latency_ms,
  stream, estimated, created_at) VALUES (?, ?, ?, ?, 'p', 'u', 'openai-chat', ?, 0, 0, ?, 0, ?, ?, NULL, 100, 0, 0, ?)`)
const batch = client.transaction((from: number, to: number) => {
  for (let index = from; index < to; index++) {
    const key = index % 100
    const account = (key % 20) + 1
    const status = pickStatus(Math.random())
    insert.run(
      `req_${index}`,
      account,
      `key_${key}`,
      pickModel(Math.random()),
      100,
      50,
      status === 200 ? 3_750 : 0,
      status,
      now - span + Math.floor((index / rows) * span),
    )
  }
})
for (let from = 0; from < rows; from += 50_000) batch(from, Math.min(rows, from + 50_000))
// Rows inserted into usage_records land in the unindexed inbox; a serving ledger would have moved them into the log.
new UsageInbox(client).moveAll()
client.exec('ANALYZE')
client.close()
console.log(`inserted ${rows} rows in ${((performance.now() - started) / 1000).toFixed(1)} s`)

async function time(label: string, filter: UsageFilter): Promise<void> {
  // Warm once (first touch of the file pages), then take the median of five.
  const first = await store.usage.listRequests(filter, pageSize)
  const firstMs: number[] = []
  for (let run = 0; run < 5; run++) {
    const begin = performance.now()
    await store.usage.listRequests(filter, pageSize)
    firstMs.push(performance.now() - begin)
  }
  let cursor: UsageCursor | undefined
  let page = first
  const deepStart = performance.now()
  let pages = 0
  for (; pages < 200 && page.length === pageSize; pages++) {
    const last = page.at(-1)!
    cursor = { createdAt: last.createdAt, id: last.id }
    page = await store.usage.listRequests(filter, pageSize, cursor)
  }
  const deepMs = pages ? (performance.now() - deepStart) / pages : 0
  firstMs.sort((a, b) => a - b)
  console.log(
    `${label.padEnd(42)} first page ${firstMs[2]!.toFixed(2).padStart(8)} ms   then ${String(pages).padStart(3)} pages deeper ${deepMs.toFixed(2).padStart(7)} ms each`,
  )
}

const weekAgo = now - 7 * 86_400_000
await time('everything', {})
await time('one account', { accountId: 7 })
await time('one key', { keyId: 'key_42' })
await time('one account, one model', { accountId: 7, model: 'claude' })
await time('one account, rare model', { accountId: 7, model: 'rare-model' })
await time('one account, server errors (5xx)', { accountId: 7, statusMin: 500, statusMax: 599 })
await time('one account, errors (4xx+5xx)', { accountId: 7, statusMin: 400, statusMax: 599 })
await time('one account, a week a month ago', { accountId: 7, since: weekAgo - 30 * 86_400_000, until: weekAgo - 23 * 86_400_000 })
await time('everything, one model', { model: 'gemini' })
await time('everything, rare model', { model: 'rare-model' })
await time('everything, status 502', { statusMin: 502, statusMax: 502 })
await time('one key, model that key never used', { keyId: 'key_42', model: 'no-such-model' })

await store.close()
rmSync(directory, { recursive: true, force: true })
