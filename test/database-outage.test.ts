import { afterAll, beforeAll, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { openPostgresStore } from '../src/db/postgres/store.ts'
import { createAccount } from '../src/domain/accounts.ts'
import { createKey } from '../src/domain/keys.ts'
import type { Store } from '../src/domain/repositories.ts'
import { startServe } from './support/cli.ts'
import { pollUntil } from './support/poll.ts'
import { createTestDatabase } from './support/postgres.ts'
import { startTcpRelay, type TcpRelay } from './support/tcp-relay.ts'

// A `tollgate serve` whose PostgreSQL is reached through a TCP relay the test cuts, stalls and restores. While the
// database does not answer, answers within the instance's leases still complete — each once its bill is synced to
// the spool, never later than the write deadline — and requests that need the database are refused with 503; once it
// answers, every bill lands exactly once. A `kill -9` while the spool holds bills loses none of them.
type Serve = Awaited<ReturnType<typeof startServe>>
const cli = ['bun', 'src/main.ts']
const writeTimeoutMs = 300
let database: Awaited<ReturnType<typeof createTestDatabase>>
let relay: TcpRelay
let admin: SQL
let store: Store
let config: string
let spoolDir: string
let serve: Serve

beforeAll(async () => {
  database = await createTestDatabase()
  relay = await startTcpRelay({ host: '127.0.0.1', port: 5432 })
  admin = new SQL(database.url, { max: 1 })
  store = openPostgresStore(database.url)
  const relayed = new URL(database.url)
  relayed.port = String(relay.port)
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-outage-'))
  spoolDir = join(dir, 'spool')
  config = join(dir, 'tollgate.yaml')
  writeFileSync(
    config,
    `listen: { host: 127.0.0.1, port: 0 }
database: ${relayed}
ledger: { write_timeout_ms: ${writeTimeoutMs}, heartbeat_ms: 200, instance_timeout_ms: 3000, spool_dir: ${spoolDir} }
limits: { unauthenticated_per_address: 1000 }
providers:
  - { name: mock, type: mock }
models:
  - { id: mock-1, provider: mock, price: { input: 1, output: 2 }, max_output_tokens: 64 }
`,
  )
  serve = await startServe(cli, config)
}, 60_000)

afterAll(async () => {
  serve?.process.kill()
  await serve?.process.exited
  relay?.stop()
  await store?.close()
  await admin?.close()
  await database?.drop()
})

async function newKey(balance: number) {
  const account = await createAccount(store.accounts, `outage-${crypto.randomUUID().slice(0, 8)}`, balance, 'test')
  const { secret, record } = await createKey(store.keys, { accountId: account.id, models: null })
  return { account, secret, keyId: record.id }
}

/** One answer read to its end, with how long it took and its request id; a stream must end with [DONE]. */
async function ask(secret: string, stream: boolean): Promise<{ status: number; id: string; ms: number }> {
  const started = performance.now()
  const response = await fetch(`${serve.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'mock-1', stream, max_tokens: 16, messages: [{ role: 'user', content: 'the database is away' }] }),
  })
  const text = await response.text()
  if (response.status === 200) {
    if (stream) expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true)
    else JSON.parse(text)
  }
  return { status: response.status, id: response.headers.get('x-request-id')!, ms: performance.now() - started }
}

async function metrics(): Promise<Record<string, number>> {
  const text = await (await fetch(`${serve.url}/metrics`)).text()
  return Object.fromEntries([...text.matchAll(/^(tollgate_(?:database|spool)_\w+) (\S+)$/gm)].map((match) => [match[1]!, Number(match[2])]))
}

interface Books {
  balance: number
  reserved: number
  credits: number
  spent: number
  holds: number
  rows: Map<string, number>
}

async function booksOf(accountId: number): Promise<Books> {
  const [account] = await admin`SELECT balance::bigint AS balance, reserved::bigint AS reserved FROM accounts WHERE id = ${accountId}`
  const usage: { request_id: string; cost: string }[] =
    await admin`SELECT request_id, cost FROM usage_records WHERE account_id = ${accountId}`
  const [credits] = await admin`SELECT coalesce(sum(amount), 0)::bigint AS total FROM ledger_entries WHERE account_id = ${accountId}`
  const [holds] = await admin`SELECT count(*)::int AS count FROM holds WHERE account_id = ${accountId}`
  const rows = new Map<string, number>()
  for (const row of usage) rows.set(row.request_id, (rows.get(row.request_id) ?? 0) + 1)
  return {
    balance: Number(account.balance),
    reserved: Number(account.reserved),
    credits: Number(credits.total),
    holds: holds.count as number,
    spent: usage.reduce((sum, row) => sum + Number(row.cost), 0),
    rows,
  }
}

/** Every answer billed exactly once, the balance exactly credits less usage, and no money left held. */
async function expectBilledOnce(accountId: number, ids: string[]): Promise<void> {
  const books = await pollUntil(
    () => booksOf(accountId),
    (books) => ids.every((id) => books.rows.has(id)) && books.reserved === 0 && books.holds === 0,
  )
  for (const id of ids) expect(books.rows.get(id)).toBe(1)
  expect(books.spent).toBeGreaterThan(0)
  expect(books).toMatchObject({ reserved: 0, holds: 0, balance: books.credits - books.spent })
}

/** Answers within the leases, a few at a time, while the database is away. */
async function askWhileAway(secret: string, count: number): Promise<string[]> {
  const answers = await Promise.all(Array.from({ length: count }, (_, index) => ask(secret, index % 2 === 0)))
  for (const answer of answers) {
    expect(answer.status).toBe(200)
    // The bound: one write deadline, then a synced append (far less than a second here).
    expect(answer.ms).toBeLessThan(writeTimeoutMs + 1500)
  }
  return answers.map((answer) => answer.id)
}

test('the database cut: answers within the leases complete from the spool, others get 503 in their protocol, and every bill lands once when it is back', async () => {
  const warm = await newKey(10_000_000_000)
  const cold = await newKey(10_000_000_000)
  // The cold account's key is known but its lease has gone back (idle for a second); the warm one has a lease.
  expect((await ask(cold.secret, false)).status).toBe(200)
  await pollUntil(
    () => booksOf(cold.account.id),
    (books) => books.holds === 0,
  )
  await askWhileAway(warm.secret, 2)

  relay.cut()
  const ids = await askWhileAway(warm.secret, 8)
  const during = await metrics()
  expect(during).toMatchObject({ tollgate_database_up: 0 })
  expect(during.tollgate_spool_entries).toBeGreaterThanOrEqual(8)
  expect(during.tollgate_spool_bytes).toBeGreaterThan(0)
  expect(during.tollgate_spool_oldest_age_seconds).toBeGreaterThan(0)
  // The spool is the instance's own: a folder only it may enter, files only it may read.
  expect(statSync(spoolDir).mode & 0o777).toBe(0o700)
  for (const file of readdirSync(spoolDir)) expect(statSync(join(spoolDir, file)).mode & 0o777).toBe(0o600)

  // A request that needs a reservation: refused at once, in the shape of the caller's protocol.
  const openai = new OpenAI({ baseURL: `${serve.url}/v1`, apiKey: cold.secret, maxRetries: 0 })
  const refused = await openai.chat.completions
    .create({ model: 'mock-1', messages: [{ role: 'user', content: 'hi' }] })
    .catch((error: unknown) => error)
  expect(refused).toBeInstanceOf(OpenAI.APIError)
  expect(refused).toMatchObject({ status: 503, code: 'database_unavailable' })
  const anthropic = new Anthropic({ baseURL: serve.url, apiKey: cold.secret, maxRetries: 0 })
  const refusedToo = await anthropic.messages
    .create({ model: 'mock-1', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] })
    .catch((error: unknown) => error)
  expect(refusedToo).toBeInstanceOf(Anthropic.APIError)
  expect(refusedToo).toMatchObject({ status: 503, error: { type: 'error', error: { type: 'overloaded_error' } } })

  relay.restore()
  const after = await pollUntil(metrics, (values) => values.tollgate_database_up === 1 && values.tollgate_spool_entries === 0)
  expect(after).toMatchObject({
    tollgate_database_up: 1,
    tollgate_spool_entries: 0,
    tollgate_spool_bytes: 0,
    tollgate_spool_oldest_age_seconds: 0,
  })
  expect(after.tollgate_database_outages_total).toBeGreaterThanOrEqual(1)
  await expectBilledOnce(warm.account.id, ids)
  expect((await ask(cold.secret, false)).status).toBe(200)
}, 60_000)

test('a stalled database: bills whose write commits after its deadline, and are replayed from the spool too, count once', async () => {
  const warm = await newKey(10_000_000_000)
  await askWhileAway(warm.secret, 2)
  relay.stall()
  // Each write in flight now hangs: past its deadline its bills go to the spool, and the answers go on.
  const ids = await askWhileAway(warm.secret, 6)
  expect((await metrics()).tollgate_spool_entries).toBeGreaterThanOrEqual(6)
  relay.resume()
  // The stalled writes commit now, and the spool replays the same bills: skipped by their request ids.
  await pollUntil(metrics, (values) => values.tollgate_database_up === 1 && values.tollgate_spool_entries === 0)
  await expectBilledOnce(warm.account.id, ids)
}, 60_000)

test('kill -9 while the spool holds bills: the next start replays each one once', async () => {
  const warm = await newKey(10_000_000_000)
  await askWhileAway(warm.secret, 2)
  relay.cut()
  const ids = await askWhileAway(warm.secret, 6)
  expect((await metrics()).tollgate_spool_entries).toBeGreaterThanOrEqual(6)
  serve.process.kill('SIGKILL')
  await serve.process.exited
  expect(readdirSync(spoolDir).some((file) => file.endsWith('.jsonl'))).toBe(true)

  relay.restore()
  serve = await startServe(cli, config)
  // Replayed at start; the dead instance's holds are released once its heartbeat is older than the timeout.
  await expectBilledOnce(warm.account.id, ids)
  expect(readdirSync(spoolDir).filter((file) => file.endsWith('.jsonl'))).toEqual([])
  expect(serve.output()).toContain('replayed bills a crash left in the spool')
}, 60_000)
