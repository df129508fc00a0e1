import { afterAll, describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { SQL } from 'bun'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Migration, runMigrations } from '../src/db/migrate.ts'
import { postgresMigrations } from '../src/db/postgres/migrations.ts'
import { openPostgresStore } from '../src/db/postgres/store.ts'
import { sqliteMigrations } from '../src/db/sqlite/migrations.ts'
import { openSqliteStore } from '../src/db/sqlite/store.ts'
import type { Store } from '../src/domain/repositories.ts'
import { createTestDatabase } from './support/postgres.ts'
import { migrateSqliteTo } from './support/usage-records.ts'

/**
 * A database from before usage rows had an operation, upgraded: every row it held is a chat row with no units, its
 * folded days keep their totals, and from then on a day folds chat and embeddings apart (the operation is in
 * usage_daily's key), so usage by operation is right for old days too.
 */
const day = 86_400_000
// The migrations that came before it (later ones, such as SQLite's 0017 rebuilding usage_records, expect its columns).
const before = (migrations: Migration[]) =>
  migrations.slice(
    0,
    migrations.findIndex((migration) => migration.name.endsWith('_usage_operation')),
  )
const oldRow = `'req_old', 1, 'key_a', 'm1', 'p', 'u', 'openai-chat', 10, 0, 0, 5, 0, 700, 200, NULL, 3, false, false, ${2 * day + 5}`
const oldColumns = `request_id, account_id, key_id, model, provider, upstream_model, protocol, input_tokens, cached_input_tokens, cache_write_tokens,
  output_tokens, reasoning_tokens, cost, status, error_type, latency_ms, stream, estimated, created_at`
const oldDaily = `INSERT INTO usage_daily (day, account_id, key_id, model, status, requests, input_tokens, cached_input_tokens, cache_write_tokens,
  output_tokens, reasoning_tokens, cost) VALUES (${day}, 1, 'key_a', 'm1', 200, 4, 40, 0, 0, 20, 0, 2800)`

/** What the upgraded store must say, whatever its dialect. */
async function checkUpgraded(store: Store) {
  await store.migrate()
  const [old] = await store.usage.listRequests({}, 10)
  expect(old).toMatchObject({ requestId: 'req_old', operation: 'chat', units: 0, cost: 700 })
  expect(await store.usage.summarize({})).toMatchObject({ requests: 5, spent: 3500 })
  expect(await store.usage.totalsBy('operation', {})).toEqual([
    { group: 'chat', requests: 5, succeeded: 5, refused: 0, failed: 0, inputTokens: 50, outputTokens: 25, spent: 3500 },
  ])
  // An embeddings row of the same day, key, model and status as the old chat row: folded beside it, not into it.
  await store.ledger.write([
    {
      kind: 'refusal',
      usage: { ...old!, requestId: 'req_new', operation: 'embeddings', units: 3, cost: 0, inputTokens: 7, outputTokens: 0 },
    },
  ])
  await store.usage.fold(10 * day, 100)
  expect(await store.usage.listRequests({}, 10)).toEqual([])
  expect(await store.usage.totalsBy('operation', {})).toEqual([
    { group: 'chat', requests: 5, succeeded: 5, refused: 0, failed: 0, inputTokens: 50, outputTokens: 25, spent: 3500 },
    { group: 'embeddings', requests: 1, succeeded: 1, refused: 0, failed: 0, inputTokens: 7, outputTokens: 0, spent: 0 },
  ])
}

describe('upgrading a database from before operations', () => {
  test('SQLite', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'tollgate-upgrade-')), 'old.db')
    const old = new Database(path)
    await migrateSqliteTo(old, before(sqliteMigrations))
    old.run(`INSERT INTO usage_records (${oldColumns}) VALUES (${oldRow.replace('false, false', '0, 0')})`)
    old.run(oldDaily)
    old.close()
    const store = openSqliteStore(path)
    try {
      await checkUpgraded(store)
    } finally {
      await store.close()
    }
  })

  const databases: { drop(): Promise<void> }[] = []
  afterAll(async () => {
    for (const database of databases) await database.drop()
  })

  test('PostgreSQL', async () => {
    const database = await createTestDatabase()
    databases.push(database)
    const old = new SQL(database.url, { max: 1 })
    await runMigrations(
      {
        async appliedNames() {
          await old`CREATE TABLE IF NOT EXISTS tollgate_migrations (name TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)`
          return new Set()
        },
        async apply(migration, statements) {
          for (const statement of statements) await old.unsafe(statement)
          await old`INSERT INTO tollgate_migrations (name, applied_at) VALUES (${migration.name}, ${Date.now()})`
        },
      },
      before(postgresMigrations),
    )
    await old.unsafe(`INSERT INTO usage_records (${oldColumns}) VALUES (${oldRow})`)
    await old.unsafe(oldDaily)
    await old.close()
    const store = openPostgresStore(database.url)
    try {
      await checkUpgraded(store)
    } finally {
      await store.close()
    }
  })
})
