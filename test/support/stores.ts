import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openPostgresStore } from '../../src/db/postgres/store.ts'
import type { Store } from '../../src/domain/repositories.ts'
import { openSqliteStore } from '../../src/db/sqlite/store.ts'
import { createTestDatabase } from './postgres.ts'

/** Every storage backend, each with a fresh database: contract tests run the same suite against all of them. */
export const storeBackends: [string, () => Promise<{ open(): Store; cleanup(): Promise<void> }>][] = [
  ['sqlite', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'contract-')), 'contract.db')
    return { open: () => openSqliteStore(path), cleanup: async () => {} }
  }],
  ['postgres', async () => {
    const database = await createTestDatabase()
    return { open: () => openPostgresStore(database.url), cleanup: () => database.drop() }
  }],
]
