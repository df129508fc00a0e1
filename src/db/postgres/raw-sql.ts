import type { SQL } from 'bun'

/** A row as PostgreSQL returns it, for statements that have not typed theirs yet. */
export type Row = Record<string, unknown>
/** The client, or a transaction of it. */
export type Runner = Pick<SQL, 'unsafe'>

/** `?` placeholders (shared with SQLite) as PostgreSQL's `$n`. */
export function numbered(sql: string): string {
  let index = 0
  return sql.replace(/\?/g, () => `$${++index}`)
}

/** Raw statements written once for both dialects (`?` placeholders), run on the client or on a transaction. */
export function rawSql(client: SQL) {
  const all = async <Shape = Row>(sql: string, params: unknown[] = [], on: Runner = client): Promise<Shape[]> =>
    await on.unsafe<Shape[]>(numbered(sql), params)
  const first = async <Shape = Row>(sql: string, params: unknown[] = [], on: Runner = client): Promise<Shape | undefined> =>
    (await all<Shape>(sql, params, on))[0]
  const run = async (sql: string, params: unknown[] = [], on: Runner = client) =>
    (await on.unsafe<{ count: number }>(numbered(sql), params)).count
  return { all, first, run }
}
