import { afterAll, beforeAll, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { SQL } from 'bun'
import { getTableConfig, type SQLiteTable } from 'drizzle-orm/sqlite-core'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import OpenAI, { toFile } from 'openai'
import { parseConfig } from '../src/config/load.ts'
import { silentLogger } from '../src/core/logger.ts'
import { copiedTables } from '../src/db/copy.ts'
import * as sqliteSchema from '../src/db/sqlite/schema.ts'
import { creditAccount } from '../src/domain/accounts.ts'
import { startGateway } from '../src/gateway.ts'
import { jsonl, pollUntil } from './support/batches.ts'
import { runCli } from './support/cli.ts'
import { addLogin, signIn } from './support/console.ts'
import { mockConfig, startTestGateway } from './support/gateway.ts'
import { createTestDatabase } from './support/postgres.ts'

// Moving from one box to many: a SQLite database that served real requests, copied into PostgreSQL, serves the same
// keys with the same money on a gateway started on the copy.
const cli = ['bun', 'src/main.ts']
const directory = mkdtempSync(join(tmpdir(), 'tollgate-copy-'))
const sqlitePath = join(directory, 'tollgate.db')
let database: Awaited<ReturnType<typeof createTestDatabase>>
let admin: SQL
let secret: string
let password: string
let taskId: string
let source: { accountId: number; balance: number; reserved: number; spent: number; requests: number }

beforeAll(async () => {
  database = await createTestDatabase()
  admin = new SQL(database.url, { max: 1 })
  const gateway = await startTestGateway({ databasePath: sqlitePath, balanceUsd: '5' })
  const { store } = gateway.gateway.services
  secret = gateway.key
  const client = new OpenAI({ baseURL: gateway.baseUrl, apiKey: secret, maxRetries: 0 })
  for (let index = 0; index < 5; index++) {
    await client.chat.completions.create({ model: 'mock-1', messages: [{ role: 'user', content: `request ${index}` }] })
  }
  await creditAccount(store.accounts, gateway.account.name, 2_500_000_000, 'top-up', 'test')
  password = await addLogin(store, 'copy-admin', 'admin')
  const file = await client.files.create({
    file: await toFile(
      Buffer.from(
        jsonl([
          {
            custom_id: 'one',
            method: 'POST',
            url: '/v1/chat/completions',
            body: { model: 'mock-1', messages: [{ role: 'user', content: 'batched' }] },
          },
        ]),
      ),
      'input.jsonl',
    ),
    purpose: 'batch',
  })
  const created = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' })
  taskId = (
    await pollUntil(
      () => client.batches.retrieve(created.id),
      (batch) => batch.status === 'completed',
    )
  ).id
  // Another account, so ids are not all 1 (a new account on the copy must not collide with a copied one).
  await gateway.createAccount('second', '1')
  const account = await gateway.settled()
  const summary = await store.usage.summarize({ accountId: account.id })
  source = { accountId: account.id, balance: account.balance, reserved: account.reserved, spent: summary.spent, requests: summary.requests }
  await gateway.gateway.stop(1000) // the files stay: the directory is this test's
})

afterAll(async () => {
  await admin?.close()
  await database?.drop()
})

test('db copy names every table of the schema, so a new table cannot be left behind', () => {
  const tables = Object.values(sqliteSchema).map((table) => getTableConfig(table as SQLiteTable).name)
  expect([...copiedTables].sort()).toEqual(tables.sort())
})

test('a copied database serves the same keys with the same balances, sign-ins and batches', async () => {
  const copy = runCli(cli, ['db', 'copy', '--from', `sqlite:${sqlitePath}`, '--to', database.url, '--json'])
  expect(copy.stderr).toBe(`tollgate: copying sqlite:${sqlitePath} into ${database.url}\n`)
  expect(copy.code).toBe(0)
  const report = copy.json()
  expect(report.matches).toBe(true)
  const rows = Object.fromEntries(report.tables.map((row: { table: string; target: number }) => [row.table, row.target]))
  expect(rows).toMatchObject({ accounts: 2, api_keys: 1, users: 1, sessions: 0, holds: 0, tasks: 1, task_items: 1, task_files: 2 })
  expect(rows.usage_records).toBe(source.requests)
  expect(report.sums.find((row: { sum: string }) => row.sum === 'accounts.balance')).toEqual({
    sum: 'accounts.balance',
    source: String(source.balance + 1_000_000_000),
    target: String(source.balance + 1_000_000_000),
  })
  // The audit log, row for row: same ids, times, actors and fields.
  const sqlite = new Database(sqlitePath, { readonly: true })
  const sourceAudit = sqlite.query('SELECT * FROM audit_log ORDER BY id').all() as Record<string, unknown>[]
  sqlite.close()
  const targetAudit = (await admin`SELECT * FROM audit_log ORDER BY id`) as Record<string, unknown>[]
  const numbers = (row: Record<string, unknown>) => ({
    ...row,
    id: Number(row.id),
    at: Number(row.at),
    account_id: row.account_id === null ? null : Number(row.account_id),
  })
  expect(sourceAudit.length).toBeGreaterThanOrEqual(4)
  expect(targetAudit.map(numbers)).toEqual(sourceAudit.map(numbers))

  const gateway = await startGateway(
    parseConfig({ ...mockConfig, listen: { host: '127.0.0.1', port: 0 }, database: database.url }),
    silentLogger,
  )
  try {
    const { store } = gateway.services
    expect(await store.accounts.findById(source.accountId)).toMatchObject({ balance: source.balance, reserved: 0 })
    expect(await store.usage.summarize({ accountId: source.accountId })).toMatchObject({ spent: source.spent, requests: source.requests })

    // The old key, on the new database: it answers, and bills the copied balance.
    const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: secret, maxRetries: 0 })
    const answer = await client.chat.completions.create({ model: 'mock-1', messages: [{ role: 'user', content: 'after the move' }] })
    expect(answer.choices[0]!.message.content).toContain('after the move')
    expect((await client.batches.retrieve(taskId)).status).toBe('completed')
    await gateway.services.ledger.drain()
    const after = (await store.accounts.findById(source.accountId))!
    const summary = await store.usage.summarize({ accountId: source.accountId })
    expect(summary.requests).toBe(source.requests + 1)
    expect(source.balance - after.balance).toBe(summary.spent - source.spent)
    expect(after.balance).toBeLessThan(source.balance)

    // The old password signs in; new rows get fresh ids after the copied ones (the sequences were moved on).
    await signIn(gateway.url, 'copy-admin', password)
    const created = runCli(cli, ['account', 'create', 'after-copy', '--json'], { TOLLGATE_DATABASE: database.url })
    expect(created.code).toBe(0)
    expect(created.json().id).toBe(3)
    // Its audit row, and the sign-in's before it, follow the copied rows.
    const newest = (await admin`SELECT id, action FROM audit_log ORDER BY id DESC LIMIT 2`) as { id: string; action: string }[]
    expect(newest.map((row) => [Number(row.id), row.action])).toEqual([
      [sourceAudit.length + 2, 'account.create'],
      [sourceAudit.length + 1, 'user.sign-in'],
    ])
  } finally {
    await gateway.stop(1000)
  }
})

test('a target with data in it is refused without --force, and replaced with it', async () => {
  const before = await admin`SELECT count(*)::int AS count FROM accounts`
  const refused = runCli(cli, ['db', 'copy', '--from', `sqlite:${sqlitePath}`, '--to', database.url])
  expect(refused.code).toBe(1)
  expect(refused.stderr).toContain('is not empty (accounts: 3')
  expect(refused.stderr).toContain('--force')
  expect(await admin`SELECT count(*)::int AS count FROM accounts`).toEqual(before)

  const forced = runCli(cli, ['db', 'copy', '--from', `sqlite:${sqlitePath}`, '--to', database.url, '--force'])
  expect(forced.code).toBe(0)
  expect(forced.stdout).toContain('copied: every count and sum matches')
  expect(await admin`SELECT name FROM accounts ORDER BY id`).toEqual([{ name: expect.stringMatching(/^acct-/) }, { name: 'second' }])
})

test('holds a crashed serve left are released before copying, and the message says so', async () => {
  const file = new Database(sqlitePath)
  file.run('INSERT INTO holds (id, account_id, key_id, amount, created_at) VALUES (?, ?, ?, ?, ?)', [
    'lease_dead',
    source.accountId,
    'key_x',
    70_000,
    Date.now(),
  ])
  file.run('UPDATE accounts SET reserved = reserved + 70000 WHERE id = ?', [source.accountId])
  // Enough usage rows to cross several INSERT batches (1000 rows each): none lost or doubled at the edges.
  file.run(
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2345)
    INSERT INTO usage_records (request_id, account_id, key_id, model, provider, upstream_model, protocol, input_tokens, cached_input_tokens,
      cache_write_tokens, output_tokens, reasoning_tokens, cost, status, error_type, latency_ms, stream, estimated, created_at, operation, units)
    SELECT 'req_' || i, ?, 'key_x', 'mock-1', 'mock', 'mock-1', 'openai-chat', 1, 0, 0, 1, 0, i, 200, NULL, 1, i % 2, 0, i,
      CASE WHEN i % 5 = 0 THEN 'embeddings' ELSE 'chat' END, CASE WHEN i % 5 = 0 THEN 3 ELSE 0 END FROM n`,
    [source.accountId],
  )
  file.close()
  const copy = runCli(cli, ['db', 'copy', '--from', `sqlite:${sqlitePath}`, '--to', database.url, '--force'])
  expect(copy.code).toBe(0)
  expect(copy.stdout).toContain('released 1 hold(s)')
  expect(await admin`SELECT reserved::int AS reserved FROM accounts WHERE id = ${source.accountId}`).toEqual([{ reserved: 0 }])
  expect(await admin`SELECT count(*)::int AS count FROM holds`).toEqual([{ count: 0 }])
  const usage = copy.stdout
    .split('\n')
    .find((line) => line.startsWith('usage_records '))!
    .split(/\s+/)
  expect(usage).toEqual(['usage_records', String(source.requests + 2345), String(source.requests + 2345), 'ok'])
  expect(await admin`SELECT count(*)::int AS count FROM usage_records WHERE stream`).toEqual([{ count: 1173 }])
  // Each row's operation and units came along (469 of the 2,345 added are embeddings rows of 3 inputs each).
  expect(
    await admin`SELECT operation, count(*)::int AS count, sum(units)::int AS units FROM usage_records GROUP BY operation ORDER BY operation`,
  ).toEqual([
    { operation: 'chat', count: source.requests + 2345 - 469, units: 0 },
    { operation: 'embeddings', count: 469, units: 1407 },
  ])
})

test('a live serve on the source, or instances serving from the target, stop the copy before it writes', async () => {
  const live = `inst_copytest`
  await admin`INSERT INTO instances (id, started_at, heartbeat_at) VALUES (${live}, ${Date.now()}, ${Date.now()})`
  const refused = runCli(cli, ['db', 'copy', '--from', `sqlite:${sqlitePath}`, '--to', database.url, '--force'])
  await admin`DELETE FROM instances WHERE id = ${live}`
  expect(refused.code).toBe(1)
  expect(refused.stderr).toContain('1 gateway instance is serving from')

  const gateway = await startTestGateway({ databasePath: sqlitePath })
  try {
    const busy = runCli(cli, ['db', 'copy', '--from', `sqlite:${sqlitePath}`, '--to', database.url, '--force'])
    expect(busy.code).toBe(1)
    expect(busy.stderr).toContain('in use by another running "tollgate serve"')
  } finally {
    await gateway.gateway.stop(1000)
  }
})
