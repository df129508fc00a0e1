import type { Database } from 'bun:sqlite'
import { type Migration, runMigrations } from '../../src/db/migrate.ts'
import type { UsageRecord } from '../../src/domain/records.ts'

/** A plain successful chat bill of `cost` for a key: tests spread their own fields over it. */
export function bill(accountId: number, keyId: string, cost: number): UsageRecord {
  return {
    requestId: `req_${crypto.randomUUID()}`,
    accountId,
    keyId,
    model: 'm',
    provider: 'p',
    upstreamModel: 'u',
    protocol: 'openai-chat',
    operation: 'chat',
    units: 0,
    inputTokens: 1,
    cachedInputTokens: 0,
    cacheWriteTokens: 0,
    outputTokens: 1,
    reasoningTokens: 0,
    cost,
    status: 200,
    errorType: null,
    latencyMs: 1,
    stream: false,
    estimated: false,
    createdAt: Date.now(),
  }
}

/** A SQLite file brought to an older schema: only `migrations` (the ones before some change) applied, as a release did. */
export async function migrateSqliteTo(database: Database, migrations: Migration[]): Promise<void> {
  await runMigrations(
    {
      async appliedNames() {
        database.run('CREATE TABLE IF NOT EXISTS tollgate_migrations (name TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)')
        return new Set()
      },
      async apply(migration, statements) {
        for (const statement of statements) database.run(statement)
        database.run('INSERT INTO tollgate_migrations (name, applied_at) VALUES (?, ?)', [migration.name, Date.now()])
      },
    },
    migrations,
  )
}
