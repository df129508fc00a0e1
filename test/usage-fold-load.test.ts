import { afterAll, beforeAll, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import OpenAI from 'openai'
import { dayMs } from '../src/core/time.ts'
import { silentLogger } from '../src/core/logger.ts'
import { createKey } from '../src/domain/keys.ts'
import type { AccountRecord, UsageFilter } from '../src/domain/records.ts'
import { UsageFolder } from '../src/domain/usage-folder.ts'
import { mockConfig, startTestGateway, type TestGateway } from './support/gateway.ts'

// A million old usage rows folded while the gateway serves: the requests made during the fold stay fast (their p99
// is printed for the README), every summary of the old rows is the same to the nano-dollar, no balance moves. Also
// prints what a million usage rows cost on disk, before and after folding.

const rows = Number(process.env.TOLLGATE_FOLD_ROWS ?? 1_000_000)
let gateway: TestGateway
let databasePath: string
let old: AccountRecord

beforeAll(async () => {
  databasePath = join(mkdtempSync(join(tmpdir(), 'fold-load-')), 'tollgate.db')
  // The gateway's own folder stays off (0 keeps every row): the test runs the fold itself, to time it.
  gateway = await startTestGateway({ databasePath, config: { ...mockConfig, retention: { requests_days: 0 } } })
  old = await gateway.createAccount('old-traffic', '1000')
}, 30_000)

afterAll(() => gateway.stop())

/** Bytes the database's pages hold: all of them, and those not on the free list (what rows and indexes use). */
function pageBytes(client: Database): { file: number; used: number } {
  const pageSize = client.query<{ page_size: number }, []>('PRAGMA page_size').get()!.page_size
  const pages = client.query<{ page_count: number }, []>('PRAGMA page_count').get()!.page_count
  const free = client.query<{ freelist_count: number }, []>('PRAGMA freelist_count').get()!.freelist_count
  return { file: pages * pageSize, used: (pages - free) * pageSize }
}

/** Bytes of a table's pages with its indexes' (SQLite's dbstat). */
function tableBytes(client: Database, table: string): number {
  return (
    client
      .query<{ bytes: number | null }, [string]>(
        'SELECT sum(pgsize) AS bytes FROM dbstat JOIN sqlite_schema AS s ON s.name = dbstat.name WHERE s.tbl_name = ?',
      )
      .get(table)!.bytes ?? 0
  )
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`

test(`folding ${rows.toLocaleString('en')} rows while serving: summaries equal, balances untouched, requests stay fast`, async () => {
  const { store } = gateway.gateway.services
  const keys = await Promise.all(Array.from({ length: 20 }, (_, index) => createKey(store.keys, { accountId: old.id, name: `k${index}` })))
  const models = ['gpt-x', 'claude-y', 'gemini-z', 'mini', 'local']
  const statuses = [200, 200, 200, 200, 200, 200, 200, 200, 429, 500]
  const now = Date.now()
  const start = now - 200 * dayMs // 200 to 100 days ago: all of it older than the 90-day default
  // A second connection writes the synthetic rows straight into the file (WAL: the gateway keeps serving), into the
  // indexed log where rows this old would long have been moved (usage_records is a view of it and the inbox).
  const client = new Database(databasePath, { strict: true })
  client.exec('PRAGMA busy_timeout = 5000')
  const empty = pageBytes(client)
  const insert =
    client.prepare(`INSERT INTO usage_log (request_id, account_id, key_id, model, provider, upstream_model, protocol, input_tokens,
    cached_input_tokens, cache_write_tokens, output_tokens, reasoning_tokens, cost, status, error_type, latency_ms, stream, estimated, created_at)
    VALUES (?, ?, ?, ?, 'openai', ?, 'openai-chat', ?, ?, 0, ?, 0, ?, ?, ?, ?, 1, 0, ?)`)
  const inserted = performance.now()
  const chunk = 50_000
  for (let first = 0; first < rows; first += chunk) {
    client
      .transaction(() => {
        for (let index = first; index < Math.min(rows, first + chunk); index++) {
          const status = statuses[index % statuses.length]!
          const model = models[Math.floor(index / 7) % models.length]!
          const input = 200 + (index % 1800)
          const output = status === 200 ? 50 + (index % 700) : 0
          insert.run(
            `req_${index.toString(36).padStart(20, '0')}`,
            old.id,
            keys[index % keys.length]!.record.id,
            model,
            `${model}-2026-01-01`,
            input,
            index % 3 === 0 ? input >> 1 : 0,
            output,
            status === 200 ? input * 1000 + output * 4000 + (index % 997) : 0,
            status,
            status === 200 ? null : status === 429 ? 'rate_limit_exceeded' : 'upstream_error',
            300 + (index % 5000),
            start + Math.floor((index * (100 * dayMs)) / rows),
          )
        }
      })
      .immediate()
  }
  const filled = pageBytes(client)
  console.log(
    `inserted ${rows.toLocaleString('en')} rows in ${Math.round(performance.now() - inserted)} ms; database ${mb(empty.file)} → ${mb(filled.file)}; ` +
      `usage rows with their indexes: ${mb((tableBytes(client, 'usage_log') * 1_000_000) / rows)} per million rows`,
  )

  const day = (daysAgo: number) => (Math.floor(now / dayMs) - daysAgo) * dayMs
  const filters: UsageFilter[] = [
    { accountId: old.id },
    { accountId: old.id, statusMin: 429, statusMax: 429 },
    { keyId: keys[3]!.record.id },
    { accountId: old.id, model: 'mini' },
    { accountId: old.id, since: day(150), until: day(120) },
  ]
  const summaries = async () =>
    Promise.all(
      filters.flatMap((filter) => [
        // A day's span (first and last request) is known only while its rows are live; its totals are what must stay.
        store.usage.summarize(filter),
        store.usage.dailyTotals(filter).then((days) => days.map(({ firstAt: _first, lastAt: _last, ...totals }) => totals)),
        store.usage.totalsBy('model', filter).then((groups) => groups.sort((a, b) => a.group.localeCompare(b.group))),
        store.usage.totalsBy('keyId', filter).then((groups) => groups.sort((a, b) => a.group.localeCompare(b.group))),
      ]),
    )
  const before = await summaries()
  expect((before[0] as { requests: number }).requests).toBe(rows)
  const balances = async () => [(await store.accounts.findById(old.id))!.balance]

  const oldBalances = await balances()

  // Serve requests the whole time the fold runs, four clients at once, timing each.
  const openai = new OpenAI({ baseURL: gateway.baseUrl, apiKey: gateway.key, maxRetries: 0 })
  const latencies: number[] = []
  let folding = true
  const clients = Array.from({ length: 4 }, async () => {
    while (folding) {
      const sent = performance.now()
      await openai.chat.completions.create({ model: 'mock-1', messages: [{ role: 'user', content: 'during the fold' }] })
      latencies.push(performance.now() - sent)
    }
  })
  await Bun.sleep(1000) // warm up
  const baselineFrom = latencies.length
  await Bun.sleep(1000) // a baseline before the fold starts
  const baseline = latencies.slice(baselineFrom)
  const folder = new UsageFolder(store.usage, { requestsDays: 90, logger: silentLogger })
  const foldStarted = performance.now()
  const duringFrom = latencies.length
  const folded = await folder.foldNow(now)
  const foldMs = performance.now() - foldStarted
  const during = latencies.slice(duringFrom)
  folding = false
  await Promise.all(clients)
  expect(folded).toBe(rows)

  const percentile = (values: number[], p: number) => {
    const sorted = [...values].sort((a, b) => a - b)
    return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN
  }
  console.log(
    `folded ${folded.toLocaleString('en')} rows in ${(foldMs / 1000).toFixed(1)} s (${Math.round(folded / (foldMs / 1000)).toLocaleString('en')} rows/s); ` +
      `${during.length} requests served meanwhile: p50 ${percentile(during, 0.5).toFixed(1)} ms, p99 ${percentile(during, 0.99).toFixed(1)} ms, ` +
      `max ${Math.max(...during).toFixed(1)} ms (before the fold: p50 ${percentile(baseline, 0.5).toFixed(1)} ms, p99 ${percentile(baseline, 0.99).toFixed(1)} ms)`,
  )
  expect(during.length).toBeGreaterThan(100)

  expect(await summaries()).toEqual(before)
  expect(await balances()).toEqual(oldBalances)
  // The requests served during the fold were billed as usual: the serving account paid exactly its live rows.
  const served = await gateway.settled()
  const live = await store.usage.summarize({ accountId: gateway.account.id })
  expect(live.requests).toBe(latencies.length)
  expect(served.balance).toBe(gateway.account.balance - live.spent)
  const aggregates = client.query<{ rows: number }, []>('SELECT count(*) AS rows FROM usage_daily').get()!.rows
  const after = pageBytes(client)
  const dailyBytes = tableBytes(client, 'usage_daily')
  console.log(
    `after folding: ${aggregates.toLocaleString('en')} daily rows (20 keys × 5 models × 3 statuses × 100 days at most) in ${mb(dailyBytes)} ` +
      `with their indexes, ~${Math.round(dailyBytes / aggregates)} bytes each; pages in use ${mb(after.used)} (the live rows of the requests served ` +
      `meanwhile included), file ${mb(after.file)}: freed pages are reused by new rows, VACUUM gives them back to the filesystem`,
  )
  client.close()
}, 600_000)
