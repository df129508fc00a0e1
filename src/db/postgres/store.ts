import { SQL } from 'bun'
import { drizzle, type BunSQLDatabase } from 'drizzle-orm/bun-sql'
import { runMigrations } from '../migrate.ts'
import type { Store } from '../../domain/repositories.ts'
import { createPostgresAudit } from './audit.ts'
import { createPostgresAccounts } from './accounts.ts'
import { createPostgresAdminTokens } from './admin-tokens.ts'
import { createPostgresKeys } from './keys.ts'
import { createPostgresBudgets } from './budgets.ts'
import { withGovernance } from '../../domain/budgets/governance.ts'
import { type InstanceOptions, PostgresInstance } from './instances.ts'
import { createPostgresLedger } from './ledger.ts'
import { postgresMigrations } from './migrations.ts'
import * as schema from './schema.ts'
import { createPostgresSessions } from './sessions.ts'
import { createPostgresUsage } from './usage.ts'
import { createPostgresUsers } from './users.ts'
import { createPostgresIdentities } from './identities.ts'
import { createPostgresTasks } from './tasks.ts'
import { createPostgresWebhooks } from './webhooks.ts'

export type PostgresDatabase = BunSQLDatabase<typeof schema>

/** PostgreSQL through Bun's built-in client: what several instances share when one box is not enough. */
export function openPostgresStore(url: string, options: InstanceOptions = {}): Store {
  const client = new SQL(url, { max: 10 })
  const db = drizzle({ client, schema })
  const budgets = createPostgresBudgets(db)
  const instance = new PostgresInstance(client, options)
  return {
    dialect: 'postgres',
    accounts: createPostgresAccounts(db),
    keys: withGovernance(createPostgresKeys(db), budgets),
    budgets,
    ledger: createPostgresLedger(client, instance),
    usage: createPostgresUsage(db, client),
    users: createPostgresUsers(db),
    sessions: createPostgresSessions(db),
    tasks: createPostgresTasks(client),
    adminTokens: createPostgresAdminTokens(db),
    identities: createPostgresIdentities(db),
    audit: createPostgresAudit(db),
    webhooks: createPostgresWebhooks(client),
    async migrate() {
      return runMigrations(
        {
          async appliedNames() {
            await client`CREATE TABLE IF NOT EXISTS tollgate_migrations (name TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)`
            const rows: { name: string }[] = await client`SELECT name FROM tollgate_migrations`
            return new Set(rows.map((row) => row.name))
          },
          async apply(migration, statements) {
            await client.begin(async (tx) => {
              // Two instances starting together: the second waits here, then finds the migration applied.
              await tx`SELECT pg_advisory_xact_lock(7423001)`
              const done: unknown[] = await tx`SELECT 1 FROM tollgate_migrations WHERE name = ${migration.name}`
              if (done.length) return
              for (const statement of statements) await tx.unsafe(statement)
              await tx`INSERT INTO tollgate_migrations (name, applied_at) VALUES (${migration.name}, ${Date.now()})`
            })
          },
        },
        postgresMigrations,
      )
    },
    async close() {
      await instance.stop()
      await client.close()
    },
  }
}
