import { SQL } from 'bun'

/** The machine's PostgreSQL (trust auth), overridable for other setups. */
export const postgresAdminUrl = process.env.TOLLGATE_TEST_POSTGRES ?? 'postgres://postgres@127.0.0.1:5432/test'

/** A fresh, empty database for one test file; `drop()` removes it. */
export async function createTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const admin = new SQL(postgresAdminUrl, { max: 1 })
  const name = `tollgate_test_${process.pid}_${Math.floor(Math.random() * 1e9)}`
  await admin.unsafe(`CREATE DATABASE ${name}`)
  const url = new URL(postgresAdminUrl)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    async drop() {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await admin.close()
    },
  }
}
