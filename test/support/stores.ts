import { SQL } from 'bun'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openPostgresStore } from '../../src/db/postgres/store.ts'
import type { Store } from '../../src/domain/repositories.ts'
import { openSqliteStore } from '../../src/db/sqlite/store.ts'
import { createTestDatabase } from './postgres.ts'

export interface StoreBackend {
  open(): Store
  /**
   * What a crash of every process using the database looks like to the next one to start: PostgreSQL — every
   * instance's heartbeat an hour old (their holds are then released at the next start); SQLite — nothing to do (the
   * serve lock proves it).
   */
  silence(): Promise<void>
  cleanup(): Promise<void>
}

/** Every storage backend, each with a fresh database: contract tests run the same suite against all of them. */
export const storeBackends: [string, () => Promise<StoreBackend>][] = [
  [
    'sqlite',
    async () => {
      const path = join(mkdtempSync(join(tmpdir(), 'contract-')), 'contract.db')
      return { open: () => openSqliteStore(path), silence: async () => {}, cleanup: async () => {} }
    },
  ],
  [
    'postgres',
    async () => {
      const database = await createTestDatabase()
      return {
        open: () => openPostgresStore(database.url),
        async silence() {
          const admin = new SQL(database.url, { max: 1 })
          await admin`UPDATE instances SET heartbeat_at = heartbeat_at - 3600000`
          await admin.close()
        },
        cleanup: () => database.drop(),
      }
    },
  ],
]
