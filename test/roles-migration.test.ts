import { expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { SQL } from 'bun'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openPostgresStore } from '../src/db/postgres/store.ts'
import { openSqliteStore } from '../src/db/sqlite/store.ts'
import type { Store } from '../src/domain/repositories.ts'
import { createTestDatabase } from './support/postgres.ts'

/**
 * A gateway upgraded from two roles to three: its logins of the old role `account` (who managed their account's keys)
 * become `account-admin`, admins stay admins, and nobody becomes a viewer. Each dialect starts from the database as
 * the previous release left it: every migration but `roles` applied, and the old role names in the table.
 */
async function upgrade(store: Store, run: (statement: string) => Promise<unknown>, migration: string): Promise<void> {
  await store.migrate()
  const acme = await store.accounts.create('acme', Date.now())
  await run(`DELETE FROM tollgate_migrations WHERE name = '${migration}'`)
  await run(
    `INSERT INTO users (name, role, account_id, password_hash, created_at, updated_at) VALUES ('old-root', 'admin', NULL, '', 1, 1), ('old-alice', 'account', ${acme.id}, '', 1, 1)`,
  )
  await store.migrate()
  const roles = (await store.users.list()).map((user) => [user.name, user.role, user.accountId])
  expect(roles).toEqual([
    ['old-alice', 'account-admin', acme.id],
    ['old-root', 'admin', null],
  ])
  // Run once: a second start changes nothing.
  await store.migrate()
  expect((await store.users.list()).map((user) => user.role)).toEqual(['account-admin', 'admin'])
}

test('sqlite: old account logins become account-admins', async () => {
  const path = join(mkdtempSync(join(tmpdir(), 'roles-migration-')), 'tollgate.db')
  const store = openSqliteStore(path)
  const raw = new Database(path)
  try {
    await upgrade(store, async (statement) => raw.exec(statement), '0008_roles')
  } finally {
    raw.close()
    await store.close()
  }
})

test('postgres: old account logins become account-admins', async () => {
  const database = await createTestDatabase()
  const store = openPostgresStore(database.url)
  const raw = new SQL(database.url, { max: 1 })
  try {
    await upgrade(store, (statement) => raw.unsafe(statement), '0009_roles')
  } finally {
    await raw.close()
    await store.close()
    await database.drop()
  }
})
