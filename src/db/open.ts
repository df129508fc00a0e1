import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { maskDatabaseUrl, parseDatabaseUrl } from '../core/database-url.ts'
import type { Store } from '../domain/repositories.ts'
import type { InstanceOptions } from './postgres/instances.ts'
import { openPostgresStore } from './postgres/store.ts'
import { openSqliteStore, type SqliteStoreOptions } from './sqlite/store.ts'

/** The database cannot be used as given: the CLI prints the message on one line and exits non-zero. */
export class DatabaseOpenError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'DatabaseOpenError'
  }
}

export interface OpenOptions extends SqliteStoreOptions {
  /**
   * Only `serve` and `migrate` may create a database. Every other command refuses a SQLite file that is not there,
   * so a mistyped command in the wrong folder never leaves a fresh ./data/tollgate.db behind.
   */
  create?: boolean
  /** PostgreSQL: how often this instance beats and when a silent one counts as gone. */
  instance?: InstanceOptions
}

/** How messages name a database: the SQLite file as an absolute path, a PostgreSQL URL without its password. */
export function describeDatabase(database: string): string {
  const target = parseDatabaseUrl(database)
  if (typeof target === 'string') return maskDatabaseUrl(database)
  return target.dialect === 'sqlite' ? `sqlite:${resolve(target.path)}` : maskDatabaseUrl(target.url)
}

/** `sqlite:PATH` → SQLite; `postgres://…` / `postgresql://…` → PostgreSQL; anything else is refused. */
export function openStore(database: string, options: OpenOptions = {}): Store {
  const target = parseDatabaseUrl(database)
  if (typeof target === 'string') throw new DatabaseOpenError(`database: ${target}`)
  if (target.dialect === 'postgres') return openPostgresStore(target.url, options.instance)
  if (options.create === false && !existsSync(target.path)) {
    throw new DatabaseOpenError(
      `no database at ${resolve(target.path)}: run \`tollgate migrate\` (or \`serve\`) to create it, ` +
        'or point --config / TOLLGATE_DATABASE at the one you meant',
    )
  }
  try {
    return openSqliteStore(target.path, options)
  } catch (error) {
    const code = (error as { code?: string }).code
    if (code && /^(E[A-Z]+|SQLITE_CANTOPEN.*|SQLITE_READONLY.*|SQLITE_NOTADB)$/.test(code)) {
      throw new DatabaseOpenError(
        `cannot open the SQLite database ${resolve(target.path)}: ${(error as Error).message}` +
          ' (check that its folder exists or can be created, and that this user may write there)',
      )
    }
    throw error
  }
}

/** Where bills wait while the database is unreachable, unless `ledger.spool_dir` says: beside the SQLite file, or ./data/spool. */
export function defaultSpoolDir(database: string): string {
  const target = parseDatabaseUrl(database)
  return typeof target !== 'string' && target.dialect === 'sqlite' ? `${resolve(target.path)}-spool` : resolve('data', 'spool')
}
