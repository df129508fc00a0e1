import type { SQL } from 'bun'

export type Row = Record<string, any>
/** The client, or a transaction of it. */
export type Runner = Pick<SQL, 'unsafe'>

/** `?` placeholders (shared with SQLite) as PostgreSQL's `$n`. */
export function numbered(sql: string): string {
  let index = 0
  return sql.replace(/\?/g, () => `$${++index}`)
}

/** Raw statements written once for both dialects (`?` placeholders), run on the client or on a transaction. */
export function rawSql(client: SQL) {
  const all = (sql: string, params: unknown[] = [], on: Runner = client): Promise<Row[]> => on.unsafe(numbered(sql), params as any[]) as unknown as Promise<Row[]>
  const first = async (sql: string, params: unknown[] = [], on: Runner = client) => (await all(sql, params, on))[0]
  const run = async (sql: string, params: unknown[] = [], on: Runner = client) => ((await on.unsafe(numbered(sql), params as any[])) as unknown as { count: number }).count
  return { all, first, run }
}
