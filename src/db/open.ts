import type { Store } from './repositories.ts'
import { openSqliteStore } from './sqlite/store.ts'

/** `sqlite:./path.db` (or a bare path) → SQLite. PostgreSQL URLs are recognised so the message is clear. */
export function openStore(database: string): Store {
  if (database.startsWith('postgres://') || database.startsWith('postgresql://')) {
    throw new Error('database: PostgreSQL is not available in this build yet; use sqlite:PATH')
  }
  const path = database.startsWith('sqlite:') ? database.slice('sqlite:'.length) : database
  return openSqliteStore(path || ':memory:')
}
