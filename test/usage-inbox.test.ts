import { describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Logger } from '../src/core/logger.ts'
import { sqliteMigrations } from '../src/db/sqlite/migrations.ts'
import { openSqliteStore } from '../src/db/sqlite/store.ts'
import { moveRows, rowsPerMove, UsageInbox } from '../src/db/sqlite/usage-inbox.ts'
import { Ledger } from '../src/domain/ledger.ts'
import type { UsageRecord } from '../src/domain/records.ts'
import type { Store } from '../src/domain/repositories.ts'
import { bill, migrateSqliteTo } from './support/usage-records.ts'

/**
 * Bills go into an unindexed inbox and move into the indexed log in batches
 * (drizzle/sqlite/0019_usage_inbox.sql): every row is read the same wherever it is, keeps its id when it moves, and
 * no id is handed out twice, whoever writes.
 */
let sequence = 0
/** A bill with fields of its own (its output tokens and stream flag differ from the last one's). */
function usage(accountId: number, cost: number): UsageRecord {
  sequence++
  return { ...bill(accountId, 'k', cost), requestId: `req_${sequence}`, inputTokens: 3, outputTokens: sequence, stream: sequence % 2 === 0 }
}

async function serving(logger?: Logger) {
  const path = join(mkdtempSync(join(tmpdir(), 'usage-inbox-')), 'tollgate.db')
  const store = openSqliteStore(path, { logger })
  await store.migrate()
  const account = await store.accounts.create('inbox', Date.now())
  await store.accounts.credit(account.id, 100_000_000, 'test', 'test', Date.now())
  const ledger = new Ledger(store.ledger, { flushMs: 60_000 })
  // Another connection to the same file, as a tool, a test or a crash-time reader would have.
  const raw = new Database(path, { strict: true })
  raw.exec('PRAGMA busy_timeout = 5000')
  const count = (table: string) => (raw.query(`SELECT count(*) AS rows FROM ${table}`).get() as { rows: number }).rows
  /** Each awaited alone: a transaction of its own, as requests arriving one by one are. */
  const settleAlone = async (bills: number, cost = 10) => {
    for (let index = 0; index < bills; index++) await ledger.settle(await ledger.placeHold(account.id, 'k', 1_000), usage(account.id, cost))
  }
  return { path, store, account, ledger, raw, count, settleAlone }
}

const everyRow = (raw: Database) => raw.query('SELECT * FROM usage_records ORDER BY id').all()

async function balanceOf(store: Store, accountId: number) {
  return (await store.accounts.findById(accountId))!.balance
}

describe('the usage inbox', () => {
  test('a bill committed alone waits unindexed, reads like any row, and moves into the log with its id and fields', async () => {
    const { store, account, ledger, raw, count, settleAlone } = await serving()
    await settleAlone(3, 25)
    expect([count('usage_inbox'), count('usage_log')]).toEqual([3, 0])
    expect((await store.usage.listRequests({ accountId: account.id }, 10)).length).toBe(3)
    expect(await store.usage.summarize({ accountId: account.id })).toMatchObject({ requests: 3, spent: 75 })
    const before = everyRow(raw)
    expect(new UsageInbox(raw).moveAll()).toBe(3)
    expect([count('usage_inbox'), count('usage_log')]).toEqual([0, 3])
    expect(everyRow(raw)).toEqual(before)
    expect(await balanceOf(store, account.id)).toBe(100_000_000 - 75)
    await ledger.drain()
    await store.close()
  })

  test(`the ledger moves the inbox itself: at once past ${moveRows} rows, within a second below that`, async () => {
    const { store, ledger, count, settleAlone } = await serving()
    await settleAlone(moveRows - 1)
    expect(count('usage_inbox')).toBe(moveRows - 1)
    await settleAlone(1)
    await new Promise((resolve) => setImmediate(resolve))
    expect([count('usage_inbox'), count('usage_log')]).toEqual([0, moveRows])
    await settleAlone(2)
    expect(count('usage_inbox')).toBe(2)
    await Bun.sleep(1_300)
    expect([count('usage_inbox'), count('usage_log')]).toEqual([0, moveRows + 2])
    await ledger.drain()
    await store.close()
  })

  test('ids never repeat when other connections write usage_records meanwhile; a group commit waits in the inbox too', async () => {
    const { store, account, ledger, raw, count, settleAlone } = await serving()
    await settleAlone(2)
    // Written into the view by another connection, without ids and without the columns that have defaults.
    const insert = raw.prepare(`INSERT INTO usage_records (request_id, account_id, key_id, model, provider, upstream_model, protocol,
      input_tokens, cached_input_tokens, cache_write_tokens, output_tokens, reasoning_tokens, cost, status, error_type, latency_ms, stream,
      estimated, created_at) VALUES (?, ?, 'k', 'm', 'p', 'u', 'openai-chat', 1, 0, 0, 1, 0, 5, 200, NULL, 1, 0, 0, ?)`)
    insert.run('req_tool_1', account.id, Date.now())
    insert.run('req_tool_2', account.id, Date.now())
    // Ten settlements queued together: one transaction, whose rows wait in the inbox as a lone bill's do.
    const holds = await Promise.all(Array.from({ length: 10 }, () => ledger.placeHold(account.id, 'k', 1_000)))
    await Promise.all(holds.map((hold) => ledger.settle(hold, usage(account.id, 10))))
    expect([count('usage_inbox'), count('usage_log')]).toEqual([14, 0])
    await settleAlone(1)
    new UsageInbox(raw).moveAll()
    const rows = raw.query('SELECT id, request_id, operation, units FROM usage_records ORDER BY id').all() as {
      id: number
      request_id: string
      operation: string
      units: number
    }[]
    expect(rows.map((row) => row.id)).toEqual(Array.from({ length: 15 }, (_, index) => index + 1))
    expect(rows.filter((row) => row.request_id.startsWith('req_tool'))).toEqual([
      { id: 3, request_id: 'req_tool_1', operation: 'chat', units: 0 },
      { id: 4, request_id: 'req_tool_2', operation: 'chat', units: 0 },
    ])
    expect([count('usage_inbox'), count('usage_log')]).toEqual([0, 15])
    // An id either table has is refused, as a table's primary key would refuse it.
    const withId = raw.prepare(`INSERT INTO usage_records (id, request_id, account_id, key_id, model, provider, upstream_model, protocol,
      input_tokens, cached_input_tokens, cache_write_tokens, output_tokens, reasoning_tokens, cost, status, error_type, latency_ms, stream,
      estimated, created_at) VALUES (?, 'req_again', ?, 'k', 'm', 'p', 'u', 'openai-chat', 1, 0, 0, 1, 0, 5, 200, NULL, 1, 0, 0, 0)`)
    expect(() => withId.run(7, account.id)).toThrow('UNIQUE constraint failed')
    await settleAlone(1)
    expect(() => withId.run(16, account.id)).toThrow('UNIQUE constraint failed')
    expect(count('usage_records')).toBe(16)
    await ledger.drain()
    await store.close()
  })

  test('a scheduled move commits one chunk a turn of the event loop, so a filled inbox never holds it long', async () => {
    const { store, account, ledger, raw, count } = await serving()
    // Another connection fills the inbox with more than two chunks' worth.
    const insert = raw.prepare(`INSERT INTO usage_records (request_id, account_id, key_id, model, provider, upstream_model, protocol,
      input_tokens, cached_input_tokens, cache_write_tokens, output_tokens, reasoning_tokens, cost, status, error_type, latency_ms, stream,
      estimated, created_at) VALUES (?, ?, 'k', 'm', 'p', 'u', 'openai-chat', 1, 0, 0, 1, 0, 5, 200, NULL, 1, 0, 0, 0)`)
    const rows = rowsPerMove * 2 + 10
    raw.transaction(() => {
      for (let index = 0; index < rows; index++) insert.run(`req_filled_${index}`, account.id)
    })()
    const inbox = new UsageInbox(raw)
    const turn = () => new Promise((resolve) => setImmediate(resolve))
    inbox.tryMove()
    expect(count('usage_inbox')).toBe(rows - rowsPerMove)
    await turn()
    expect(count('usage_inbox')).toBe(10)
    await turn()
    expect([count('usage_inbox'), count('usage_log')]).toEqual([0, rows])
    await ledger.drain()
    await store.close()
  })

  test('a move that fails leaves every row readable where it is, is logged once, and works again on a later try', async () => {
    const warnings: string[] = []
    const infos: string[] = []
    const logger: Logger = {
      info: (_, message) => infos.push(message ?? ''),
      warn: (_, message) => warnings.push(message ?? ''),
      error() {},
    }
    const { store, account, ledger, raw, count, settleAlone } = await serving(logger)
    raw.exec(`CREATE TRIGGER refuse_moves BEFORE INSERT ON usage_log BEGIN SELECT RAISE(ABORT, 'database or disk is full (test)'); END`)
    await settleAlone(moveRows + 5, 10)
    await new Promise((resolve) => setImmediate(resolve))
    expect(count('usage_inbox')).toBe(moveRows + 5)
    expect(warnings).toEqual(['usage inbox move failed: new usage rows wait in usage_inbox, unindexed, until a move works'])
    expect(await store.usage.summarize({ accountId: account.id })).toMatchObject({ requests: moveRows + 5, spent: (moveRows + 5) * 10 })
    raw.exec('DROP TRIGGER refuse_moves')
    await Bun.sleep(1_300)
    expect([count('usage_inbox'), count('usage_log')]).toEqual([0, moveRows + 5])
    expect(warnings.length).toBe(1)
    expect(infos).toContain('usage inbox move works again')
    await ledger.drain()
    await store.close()
  })

  test('a server that starts moves the rows a crashed one left in the inbox; one that stops moves its own', async () => {
    const { path, store, ledger, count, settleAlone } = await serving()
    await settleAlone(4)
    // The first server "crashes": it never closes, and its rows stay where its last commits put them.
    expect(count('usage_inbox')).toBe(4)
    const next = openSqliteStore(path)
    await next.migrate()
    await next.ledger.startServing(0)
    expect([count('usage_inbox'), count('usage_log')]).toEqual([0, 4])
    const nextLedger = new Ledger(next.ledger, { flushMs: 60_000 })
    const [account] = await next.accounts.list()
    await nextLedger.settle(await nextLedger.placeHold(account!.id, 'k', 1_000), usage(account!.id, 10))
    expect(count('usage_inbox')).toBe(1)
    await nextLedger.drain()
    await next.close()
    expect([count('usage_inbox'), count('usage_log')]).toEqual([0, 5])
    await ledger.drain()
    await store.close()
  })

  test('upgrading keeps every usage row with its id, in the indexed log, and new bills are numbered after them', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'usage-inbox-upgrade-')), 'old.db')
    const old = new Database(path)
    await migrateSqliteTo(
      old,
      sqliteMigrations.filter((migration) => migration.name < '0019'),
    )
    old.run(`INSERT INTO accounts (id, name, balance, reserved, created_at) VALUES (1, 'old', 1000000, 0, 0)`)
    for (const id of [7, 8, 40])
      old.run(`INSERT INTO usage_records (id, request_id, account_id, key_id, model, provider, upstream_model, protocol, input_tokens,
        cached_input_tokens, cache_write_tokens, output_tokens, reasoning_tokens, cost, status, error_type, latency_ms, stream, estimated,
        created_at, operation, units) VALUES (${id}, 'req_old_${id}', 1, 'k', 'm', 'p', 'u', 'openai-chat', 1, 0, 0, 1, 0, 100, 200, NULL,
        1, 0, 0, ${id}, 'chat', 0)`)
    old.close()
    const store = openSqliteStore(path)
    await store.migrate()
    const raw = new Database(path)
    const indexes = raw.query(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'usage_log' ORDER BY name`).all()
    expect(indexes).toEqual([
      { name: 'usage_account_time' },
      { name: 'usage_key_time' },
      { name: 'usage_model_time' },
      { name: 'usage_time' },
    ])
    const ledger = new Ledger(store.ledger, { flushMs: 60_000 })
    await ledger.settle(await ledger.placeHold(1, 'k', 1_000), usage(1, 10))
    const rows = raw.query('SELECT id, request_id FROM usage_records ORDER BY id').all() as { id: number; request_id: string }[]
    expect(rows.map((row) => row.id)).toEqual([7, 8, 40, 41])
    expect(await store.usage.summarize({ accountId: 1 })).toMatchObject({ requests: 4, spent: 310 })
    await ledger.drain()
    await store.close()
  })
})
