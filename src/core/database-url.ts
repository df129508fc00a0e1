/**
 * The `database:` setting, read exactly as documented and nothing more: `sqlite:PATH` or `postgres://…` /
 * `postgresql://…`. Anything else is refused with a reason, because a guess is worse than an error here: `mysql://…`
 * once became a SQLite file named `./mysql:/…`, `sqlite://./x.db` wrote `/x.db` at the filesystem root, and
 * `sqlite:` gave an in-memory database whose data vanished at exit.
 */
export type DatabaseTarget = { dialect: 'sqlite'; path: string } | { dialect: 'postgres'; url: string }

/** The target, or a sentence saying what is wrong (the caller names the field). */
export function parseDatabaseUrl(value: string): DatabaseTarget | string {
  const documented = 'expected sqlite:PATH (e.g. sqlite:./data/tollgate.db) or postgres://USER@HOST:PORT/DATABASE'
  if (/^postgres(ql)?:\/\//.test(value)) {
    if (!URL.canParse(value)) return `"${maskDatabaseUrl(value)}" is not a valid URL; ${documented}`
    return { dialect: 'postgres', url: value }
  }
  if (value.startsWith('sqlite:')) {
    const path = value.slice('sqlite:'.length)
    if (path === '') return `"sqlite:" names no file (it would be an in-memory database, lost at exit); ${documented}`
    if (path === ':memory:') return `"sqlite::memory:" would keep the data in memory, lost at exit; ${documented}`
    if (path.startsWith('//')) {
      return `"${value}" is URL syntax, which Tollgate does not read; write sqlite:PATH, e.g. sqlite:./data/tollgate.db or sqlite:/var/lib/tollgate/tollgate.db`
    }
    return { dialect: 'sqlite', path }
  }
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(value)?.[1]
  if (scheme) return `"${scheme}:" databases are not supported; ${documented}`
  return `"${value}" has no sqlite: or postgres:// prefix; ${documented}`
}

/** For messages and logs: a PostgreSQL password never leaves the process. */
export function maskDatabaseUrl(value: string): string {
  return value.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*):[^@/]*@/i, '$1:***@')
}
