/**
 * `npm test` needs PostgreSQL (the store contract suite runs against SQLite and PostgreSQL alike). Exit 0 when the
 * test server answers a query, else print why in one line and exit 1, so the suite does not fail later in unnamed hooks.
 */
import { SQL } from 'bun'

const url = process.env.TOLLGATE_TEST_POSTGRES || 'postgres://postgres@127.0.0.1:5432/test'
const sql = new SQL(url, { max: 1, connectionTimeout: 3, idleTimeout: 1 })
try {
  await sql`SELECT 1`
  await sql.close()
} catch (error) {
  const { code } = error as { code?: string }
  console.error(`PostgreSQL at ${url.replace(/:[^:@/]*@/, ':***@')} did not answer: ${(error as Error).message}${code ? ` (${code})` : ''}`)
  process.exit(1)
}
