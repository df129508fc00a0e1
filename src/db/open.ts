import type { Store } from './repositories.ts'
import { openPostgresStore } from './postgres/store.ts'
import { openSqliteStore } from './sqlite/store.ts'

/** `sqlite:./path.db` (or a bare path) → SQLite; `postgres://…` → PostgreSQL. */
export function openStore(database: string): Store {
  if (database.startsWith('postgres://') || database.startsWith('postgresql://')) return openPostgresStore(database)
  const path = database.startsWith('sqlite:') ? database.slice('sqlite:'.length) : database
  return openSqliteStore(path || ':memory:')
}
