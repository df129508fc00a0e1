import { Database } from 'bun:sqlite'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { drizzle, type BunSQLiteDatabase } from 'drizzle-orm/bun-sqlite'
import { sql } from 'drizzle-orm'
import { runMigrations } from '../migrate.ts'
import type { Store } from '../../domain/repositories.ts'
import type { Logger } from '../../core/logger.ts'
import { createSqliteAudit } from './audit.ts'
import { createSqliteAccounts } from './accounts.ts'
import { createSqliteAdminTokens } from './admin-tokens.ts'
import { startCheckpointer } from './checkpointer.ts'
import { createSqliteKeys } from './keys.ts'
import { createSqliteBudgets } from './budgets.ts'
import { withGovernance } from '../../domain/budgets/governance.ts'
import { createSqliteLedger } from './ledger.ts'
import { acquireServeLock } from './serve-lock.ts'
import { createPrivately } from './private-file.ts'
import { sqliteMigrations } from './migrations.ts'
import * as schema from './schema.ts'
import { createSqliteSessions } from './sessions.ts'
import { createSqliteUsage } from './usage.ts'
import { createSqliteUsers } from './users.ts'
import { createSqliteIdentities } from './identities.ts'
import { createSqliteTasks } from './tasks.ts'
import { createSqliteWebhooks } from './webhooks.ts'

export type SqliteDatabase = BunSQLiteDatabase<typeof schema>

export interface SqliteStoreOptions {
  /**
   * A long-running server: the WAL is checkpointed from a thread of its own (checkpointer.ts), and the file's serve
   * lock is held until `close` (serve-lock.ts) — a second server on the same file refuses to start.
   */
  serving?: boolean
  /** Where work the store does on its own (moving usage rows out of the inbox) says that it failed. */
  logger?: Logger
}

/** Open (creating if needed) a SQLite file; `:memory:` works for throwaway stores. */
export function openSqliteStore(path: string, options: SqliteStoreOptions = {}): Store {
  // A folder made here is the owner's alone (0700), like the files in it; an existing one is left as the operator made it.
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
  // One server per file, taken before anything else is touched (throws DatabaseInUseError).
  const releaseLock = options.serving && path !== ':memory:' ? acquireServeLock(path) : undefined
  if (path !== ':memory:') createPrivately(path)
  const client = new Database(path, { create: true, strict: true })
  // WAL lets the CLI read and write while `serve` runs; NORMAL sync is durable against process crashes
  // and only risks the last transactions on power loss, which is the usual trade for a gateway.
  client.exec('PRAGMA journal_mode = WAL')
  client.exec('PRAGMA synchronous = NORMAL')
  client.exec('PRAGMA busy_timeout = 5000')
  client.exec('PRAGMA foreign_keys = ON')
  // Statement journals and sorts in memory, not in files: a batch's multi-row usage INSERT opened (O_TMPFILE), stat'ed
  // and closed a temporary file in about a third of batched commits under load (strace), ~1-3 µs a request
  // (bench/compare.ts). What the gateway sorts is small: the console's pages are read along indexes, with a LIMIT.
  client.exec('PRAGMA temp_store = MEMORY')
  const checkpointer = options.serving && path !== ':memory:' ? startCheckpointer(client, path) : undefined
  const db = drizzle(client, { schema })
  const budgets = createSqliteBudgets(db)
  const ledger = createSqliteLedger(client, options.logger)
  return {
    dialect: 'sqlite',
    accounts: createSqliteAccounts(db),
    keys: withGovernance(createSqliteKeys(db), budgets),
    budgets,
    ledger,
    usage: createSqliteUsage(db, client),
    users: createSqliteUsers(db),
    sessions: createSqliteSessions(db),
    tasks: createSqliteTasks(client),
    adminTokens: createSqliteAdminTokens(db),
    identities: createSqliteIdentities(db),
    audit: createSqliteAudit(db),
    webhooks: createSqliteWebhooks(client),
    async migrate() {
      return runMigrations(
        {
          async appliedNames() {
            db.run(sql`CREATE TABLE IF NOT EXISTS tollgate_migrations (name TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)`)
            const rows = db.all<{ name: string }>(sql`SELECT name FROM tollgate_migrations`)
            return new Set(rows.map((row) => row.name))
          },
          async apply(migration, statements) {
            client
              .transaction(() => {
                for (const statement of statements) client.exec(statement)
                client.query('INSERT INTO tollgate_migrations (name, applied_at) VALUES (?, ?)').run(migration.name, Date.now())
              })
              .immediate()
          },
        },
        sqliteMigrations,
      )
    },
    async close() {
      ledger.close()
      await checkpointer?.stop()
      client.close()
      releaseLock?.()
    },
  }
}
