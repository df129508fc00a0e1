import type { Store } from '../domain/repositories.ts'
import { openPostgresStore } from './postgres/store.ts'
import { openSqliteStore, type SqliteStoreOptions } from './sqlite/store.ts'

/** `sqlite:./path.db` (or a bare path) → SQLite; `postgres://…` → PostgreSQL. */
export function openStore(database: string, options: SqliteStoreOptions = {}): Store {
  if (database.startsWith('postgres://') || database.startsWith('postgresql://')) return openPostgresStore(database)
  const path = database.startsWith('sqlite:') ? database.slice('sqlite:'.length) : database
  return openSqliteStore(path || ':memory:', options)
}
