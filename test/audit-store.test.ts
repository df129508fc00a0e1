import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { SQL } from 'bun'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openPostgresStore } from '../src/db/postgres/store.ts'
import { openSqliteStore } from '../src/db/sqlite/store.ts'
import { cliActor } from '../src/domain/actor.ts'
import { createAccount, creditAccount } from '../src/domain/accounts.ts'
import { createAdminToken, revokeAdminToken } from '../src/domain/admin-tokens.ts'
import { auditEvent } from '../src/domain/audit/note.ts'
import { signInEntry } from '../src/domain/audit/sign-ins.ts'
import type { AuditEntry } from '../src/domain/audit/records.ts'
import { KeyService } from '../src/domain/key-service.ts'
import type { Store } from '../src/domain/repositories.ts'
import { startSession } from '../src/domain/sessions.ts'
import { signOn } from '../src/domain/single-sign-on/sign-on.ts'
import { cancelTask } from '../src/domain/tasks/service.ts'
import { changePassword, createUser, deleteUser } from '../src/domain/users.ts'
import { parseConfig } from '../src/config/load.ts'
import { silentLogger } from '../src/core/logger.ts'
import { AuditRetention } from '../src/domain/audit/retention.ts'
import { mockConfig } from './support/gateway.ts'
import { createTestDatabase } from './support/postgres.ts'

/**
 * The audit table on both databases: read with filters and keyset pages, pruned only by retention, never updated; and
 * every audited write is one transaction with its row. With the row's INSERT forced to fail (a trigger), every kind
 * of change fails whole — nothing of it is left — and a change that fails by itself leaves no row.
 */
interface Backend {
  store: Store
  /** Run raw SQL on the same database, beside the store. */
  exec(sql: string): Promise<void>
  /** Make every INSERT into audit_log fail, or stop doing so. */
  breakAudit(broken: boolean): Promise<void>
  close(): Promise<void>
}

async function openSqlite(): Promise<Backend> {
  const path = join(mkdtempSync(join(tmpdir(), 'audit-')), 'audit.db')
  const store = openSqliteStore(path)
  await store.migrate()
  const raw = new Database(path)
  const exec = async (sql: string) => void raw.exec(sql)
  return {
    store,
    exec,
    breakAudit: (broken) =>
      exec(
        broken
          ? `CREATE TRIGGER audit_broken BEFORE INSERT ON audit_log BEGIN SELECT RAISE(ABORT, 'forced failure'); END`
          : 'DROP TRIGGER audit_broken',
      ),
    async close() {
      raw.close()
      await store.close()
    },
  }
}

async function openPostgres(): Promise<Backend> {
  const database = await createTestDatabase()
  const store = openPostgresStore(database.url)
  await store.migrate()
  const raw = new SQL(database.url, { max: 1 })
  const exec = async (sql: string) => void (await raw.unsafe(sql))
  await exec(`CREATE FUNCTION audit_broken() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'forced failure'; END; $$`)
  return {
    store,
    exec,
    breakAudit: (broken) =>
      exec(
        broken
          ? 'CREATE TRIGGER audit_broken BEFORE INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION audit_broken()'
          : 'DROP TRIGGER audit_broken ON audit_log',
      ),
    async close() {
      await raw.close()
      await store.close()
      await database.drop()
    },
  }
}

const operator = cliActor('ops')
/** Whether an error is the forced one (Drizzle wraps a PostgreSQL error in its own, the database's as the cause). */
const failedByForce = (error: Error): boolean | string =>
  /forced failure/.test(`${error.message} ${(error.cause as Error | undefined)?.message}`) || error.message
const entry = (at: number, action: string, accountId: number | null, label = 'cli:ops'): AuditEntry => ({
  at,
  action,
  objectType: 'key',
  objectId: `key_${at}`,
  accountId,
  actor: { kind: 'cli', id: label.slice(4), label, address: null },
  before: null,
  after: { rpm: at },
})

for (const [dialect, open] of [
  ['sqlite', openSqlite],
  ['postgres', openPostgres],
] as const) {
  describe(`the audit table on ${dialect}`, () => {
    let backend: Backend
    beforeAll(async () => {
      backend = await open()
    })
    afterAll(() => backend?.close())

    test('rows read back newest first, filtered, a keyset page at a time; retention deletes only what is older', async () => {
      const { audit } = backend.store
      for (let at = 1000; at < 1010; at++)
        await audit.record(entry(at, at % 2 ? 'key.edit' : 'key.create', at < 1005 ? 1 : 2, at === 1009 ? 'cli:eve' : 'cli:ops'))
      expect((await audit.list({}, 3)).map((row) => row.at)).toEqual([1009, 1008, 1007])
      const [newest] = await audit.list({}, 1)
      expect((await audit.list({}, 3, { at: newest!.at, id: newest!.id })).map((row) => row.at)).toEqual([1008, 1007, 1006])
      expect((await audit.list({ accountId: 1 }, 100)).map((row) => row.at)).toEqual([1004, 1003, 1002, 1001, 1000])
      expect((await audit.list({ action: 'key.edit', since: 1003, until: 1008 }, 100)).map((row) => row.at)).toEqual([1007, 1005, 1003])
      expect((await audit.list({ actor: 'cli:eve' }, 100)).map((row) => row.at)).toEqual([1009])
      expect((await audit.list({ actor: 'eve' }, 100)).map((row) => row.at)).toEqual([1009]) // by its id too
      expect(await audit.list({ objectType: 'key', objectId: 'key_1004' }, 100)).toMatchObject([
        { at: 1004, after: { rpm: 1004 }, before: null },
      ])
      expect(await audit.prune(1003, 2)).toBe(2)
      expect(await audit.prune(1003, 2)).toBe(1)
      expect(await audit.prune(1003, 2)).toBe(0)
      expect((await audit.list({}, 100)).map((row) => row.at).at(-1)).toBe(1003)
    })

    test('the database itself refuses to change a row', async () => {
      await expect(backend.exec(`UPDATE audit_log SET actor_label = 'someone else'`)).rejects.toThrow('append-only')
      expect((await backend.store.audit.list({}, 100)).every((row) => row.actor.label !== 'someone else')).toBe(true)
    })

    test('with the audit row failing, every kind of change fails whole and leaves nothing behind', async () => {
      const { store } = backend
      const account = await createAccount(store.accounts, 'kept', 5_000_000_000, operator)
      const keys = new KeyService({ repository: store.keys, configuredModels: () => ['mock-1'] })
      const { record: key } = await keys.create({ accountId: account.id, name: 'kept-key' }, operator)
      const { user } = await createUser(store, { name: 'kept-user', role: 'admin', password: 'a long enough password' }, operator)
      const token = await createAdminToken(store.adminTokens, 'kept-token', 'read', operator)
      const task = {
        id: 'batch_kept',
        kind: 'openai' as const,
        accountId: account.id,
        keyId: key.id,
        status: 'queued' as const,
        endpoint: '/v1/chat/completions',
        model: null,
        inputFileId: null,
        outputFileId: null,
        errorFileId: null,
        metadata: null,
        displayName: null,
        total: 1,
        succeeded: 0,
        failed: 0,
        canceled: 0,
        expired: 0,
        spent: 0,
        createdAt: 1,
        startedAt: null,
        finishedAt: null,
        cancelRequestedAt: null,
        expiresAt: Date.now() + 3_600_000,
      }
      await store.tasks.createTask(task, [{ id: 'item_kept', seq: 0, customId: 'one', body: '{}' }])
      const snapshot = async () =>
        JSON.stringify([
          await store.accounts.list(),
          await store.accounts.ledgerEntries(account.id),
          await store.keys.list(),
          await store.users.list(),
          await store.adminTokens.list(),
          await store.tasks.findTask(task.id),
          await store.identities.findIdentity('https://idp', 'subject-1'),
          await store.audit.list({}, 1000),
        ])
      const before = await snapshot()
      await backend.breakAudit(true)
      try {
        const changes: [string, () => Promise<unknown>][] = [
          ['account.create', () => createAccount(store.accounts, 'never', 1_000_000_000, operator)],
          ['account.credit', () => creditAccount(store.accounts, 'kept', 1_000_000_000, 'never', operator)],
          ['key.create', () => keys.create({ accountId: account.id }, operator)],
          ['key.edit', () => keys.edit(key.id, { rpm: 5 }, operator)],
          ['key.rotate', () => keys.rotate(key.id, operator)],
          ['key.revoke', () => keys.revoke(key.id, operator)],
          ['user.create', () => createUser(store, { name: 'never', role: 'admin' }, operator)],
          ['user.password', () => changePassword(store, 'kept-user', 'another long password', operator)],
          ['user.delete', () => deleteUser(store.users, 'kept-user', operator)],
          ['user.sign-in', () => startSession(store.sessions, user.id, Date.now(), signInEntry(user, 'password', '127.0.0.1', Date.now()))],
          [
            'single sign-on',
            () =>
              signOn(
                store,
                { allowedDomains: [], roleClaim: 'role' },
                { issuer: 'https://idp', subject: 'subject-1', claims: { email: 'new@example.com', role: 'admin' } },
              ),
          ],
          ['admin-token.create', () => createAdminToken(store.adminTokens, 'never', 'full', operator)],
          ['admin-token.revoke', () => revokeAdminToken(store.adminTokens, token.record.id, operator)],
          ['task.cancel', () => cancelTask(store.tasks, task.id, operator, Date.now())],
          ['an event', () => store.audit.record(auditEvent(operator, 'user.unlock', { type: 'user', id: '1', accountId: null }, 1, null))],
        ]
        for (const [what, change] of changes) {
          await expect({ what, failed: await change().then(() => 'no', failedByForce) }).toEqual({ what, failed: true })
        }
        // The sign-in made no session either: its row failing failed it.
        expect(await store.sessions.deleteForUser(user.id)).toBe(0)
      } finally {
        await backend.breakAudit(false)
      }
      expect(await snapshot()).toBe(before)
    })

    test('a change that fails by itself leaves no row', async () => {
      const { store } = backend
      const keys = new KeyService({ repository: store.keys, configuredModels: () => ['mock-1'] })
      const rows = async () => (await store.audit.list({}, 10_000)).length
      const count = await rows()
      const account = (await store.accounts.findByName('kept'))!
      await expect(creditAccount(store.accounts, 'kept', -account.balance - 1, 'overdraft', operator)).rejects.toThrow('below zero')
      // Past the domain's own check: the repository's guard refuses it in the statement, and the transaction is undone.
      await expect(
        store.accounts.credit(account.id, -account.balance - 1, 'overdraft', 'x', Date.now(), () => entry(1, 'account.debit', account.id)),
      ).rejects.toThrow('below zero')
      const [key] = await store.keys.list(account.id)
      await keys.revoke(key!.id, operator)
      const revoked = await rows()
      expect(await store.keys.update(key!.id, { rpm: 1 }, Date.now(), () => entry(2, 'key.edit', account.id))).toBe(false)
      expect(await store.keys.revoke(key!.id, Date.now(), () => entry(3, 'key.revoke', account.id))).toBe(false)
      await expect(createUser(store, { name: 'kept-user', role: 'admin' }, operator)).rejects.toThrow('already exists')
      await expect(
        store.users.create({ name: 'kept-user', role: 'admin', accountId: null, passwordHash: '', createdAt: 1, updatedAt: 1 }, () =>
          entry(4, 'user.create', null),
        ),
      ).rejects.toThrow()
      expect(await rows()).toBe(revoked)
      expect(revoked).toBe(count + 1)
    })
  })
}

describe('retention.audit_days', () => {
  test('rows older than the setting go, a batch at a time; newer ones stay; 0 (the default) never deletes one', async () => {
    const backend = await openSqlite()
    try {
      const { audit } = backend.store
      const now = Date.UTC(2026, 5, 1)
      for (let day = 0; day < 10; day++) await audit.record(entry(now - day * 86_400_000 - 1, 'key.edit', 1))
      const keepForever = new AuditRetention(audit, { auditDays: 0, logger: silentLogger, firstDelayMs: 0 })
      keepForever.start()
      await Bun.sleep(20)
      await keepForever.stop()
      expect(await audit.list({}, 100)).toHaveLength(10)
      const week = new AuditRetention(audit, { auditDays: 7, logger: silentLogger, batchRows: 1, pauseMs: 0 })
      expect(await week.pruneNow(now)).toBe(3)
      expect((await audit.list({}, 100)).map((row) => Math.round((now - row.at) / 86_400_000))).toEqual([0, 1, 2, 3, 4, 5, 6])
      expect(parseConfig({ ...mockConfig, retention: { audit_days: 400 } }, 'test').retention.auditDays).toBe(400)
      expect(parseConfig(mockConfig, 'test').retention.auditDays).toBe(0)
    } finally {
      await backend.close()
    }
  })
})
