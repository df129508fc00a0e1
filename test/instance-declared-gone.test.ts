import { afterAll, beforeAll, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openPostgresStore } from '../src/db/postgres/store.ts'
import { createAccount } from '../src/domain/accounts.ts'
import { createKey } from '../src/domain/keys.ts'
import type { Store } from '../src/domain/repositories.ts'
import { startServe } from './support/cli.ts'
import { pollUntil } from './support/poll.ts'
import { createTestDatabase } from './support/postgres.ts'

// Two `tollgate serve` processes on one PostgreSQL. One is frozen (SIGSTOP) in the middle of a stream for longer
// than the instance timeout: the other declares it gone and releases its holds, as it must for a crashed one. Then
// it is resumed (SIGCONT) — a paused VM, a long stall — and goes on serving. It must notice, register again, stop
// carving from its old leases, and settle its stream without releasing anything twice or losing the debit.
type Serve = Awaited<ReturnType<typeof startServe>>
const cli = ['bun', 'src/main.ts']
/** One request's worst case and its cost alike: 8 output tokens at $1,000 per million, input free. */
const requestCost = 8_000_000
let database: Awaited<ReturnType<typeof createTestDatabase>>
let admin: SQL
let store: Store
let frozen: Serve
let survivor: Serve

beforeAll(async () => {
  database = await createTestDatabase()
  admin = new SQL(database.url, { max: 1 })
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-gone-'))
  const config = join(dir, 'tollgate.yaml')
  // Beats every 100 ms; silent for 800 ms is gone. Streams of 8 chunks, 150 ms apart.
  writeFileSync(
    config,
    `listen: { host: 127.0.0.1, port: 0 }
database: ${database.url}
ledger: { heartbeat_ms: 100, instance_timeout_ms: 800, spool_dir: ${join(dir, 'spool')} }
limits: { unauthenticated_per_address: 1000 }
providers:
  - { name: slow, type: mock, chunk_delay_ms: 150 }
models:
  - { id: slow, provider: slow, price: { input: 0, output: 1000 }, max_output_tokens: 8 }
`,
  )
  frozen = await startServe(cli, config)
  survivor = await startServe(cli, config)
  store = openPostgresStore(database.url)
}, 60_000)

afterAll(async () => {
  frozen?.process.kill('SIGCONT')
  frozen?.process.kill()
  survivor?.process.kill()
  await Promise.all([frozen?.process.exited, survivor?.process.exited])
  await store?.close()
  await admin?.close()
  await database?.drop()
})

function ask(url: string, secret: string, stream = false): Promise<Response> {
  return fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'slow',
      stream,
      messages: [{ role: 'user', content: 'one two three four five six seven eight nine ten' }],
    }),
  })
}

async function askWhole(url: string, secret: string): Promise<{ status: number; id: string | null }> {
  const response = await ask(url, secret)
  await response.text()
  return { status: response.status, id: response.headers.get('x-request-id') }
}

interface Ledger {
  balance: number
  reserved: number
  credits: number
  spent: number
  keySpent: number
  holds: string[]
  rows: Map<string, number>
}

async function ledgerOf(accountId: number, keyId: string): Promise<Ledger> {
  const [account] = await admin`SELECT balance::bigint AS balance, reserved::bigint AS reserved FROM accounts WHERE id = ${accountId}`
  // Refused requests leave rows too (cost 0, status 403): only answers served are counted.
  const usage: { request_id: string; cost: string }[] =
    await admin`SELECT request_id, cost FROM usage_records WHERE account_id = ${accountId} AND status = 200`
  const [credits] = await admin`SELECT coalesce(sum(amount), 0)::bigint AS total FROM ledger_entries WHERE account_id = ${accountId}`
  const [key] = await admin`SELECT spent::bigint AS spent FROM api_keys WHERE id = ${keyId}`
  const holds: { id: string; amount: string; instance_id: string }[] =
    await admin`SELECT id, amount, instance_id FROM holds WHERE account_id = ${accountId}`
  const rows = new Map<string, number>()
  for (const row of usage) rows.set(row.request_id, (rows.get(row.request_id) ?? 0) + 1)
  return {
    balance: Number(account.balance),
    reserved: Number(account.reserved),
    credits: Number(credits.total),
    keySpent: Number(key.spent),
    spent: usage.reduce((sum, row) => sum + Number(row.cost), 0),
    holds: holds.map((hold) => `${hold.id} ${hold.amount} ${hold.instance_id}`),
    rows,
  }
}

test('an instance frozen past the timeout mid-stream, then resumed: registered again, its stream billed once, nothing released twice, nothing overdrawn', async () => {
  const instances = async () => ((await admin`SELECT id FROM instances ORDER BY started_at`) as { id: string }[]).map((row) => row.id)
  const [frozenId] = await instances()
  const account = await createAccount(store.accounts, `tight-${Date.now()}`, 6 * requestCost, 'test')
  const { secret, record } = await createKey(store.keys, { accountId: account.id, models: null })
  // `reserved` must never drop below zero, whatever happens: watched throughout.
  let lowestReserved = 0
  let watching = true
  const watcher = (async () => {
    while (watching) {
      const [row] = await admin`SELECT reserved::bigint AS reserved FROM accounts WHERE id = ${account.id}`
      lowestReserved = Math.min(lowestReserved, Number(row.reserved))
      await Bun.sleep(10)
    }
  })()

  // A stream begins on the instance about to freeze: its lease takes the whole balance (a tight one).
  const stream = await ask(frozen.url, secret, true)
  const streamId = stream.headers.get('x-request-id')!
  const reader = stream.body!.getReader()
  await reader.read()
  expect((await ledgerOf(account.id, record.id)).reserved).toBe(6 * requestCost)

  frozen.process.kill('SIGSTOP')
  // The survivor finds it silent past the timeout: its row goes, and with it the hold of its stream.
  const gone = await pollUntil(
    async () => ({ ids: await instances(), ledger: await ledgerOf(account.id, record.id) }),
    ({ ids, ledger }) => !ids.includes(frozenId!) && ledger.holds.length === 0,
  )
  expect(gone.ids).not.toContain(frozenId)
  expect(gone.ledger).toMatchObject({ reserved: 0, holds: [] })
  // That money serves the survivor's requests meanwhile, and its lease goes back when idle. (Money released while a
  // request was in flight comes back to that request only if nobody took it meanwhile: README "Several instances".)
  expect((await askWhole(survivor.url, secret)).status).toBe(200)
  expect((await askWhole(survivor.url, secret)).status).toBe(200)
  await pollUntil(
    () => ledgerOf(account.id, record.id),
    (ledger) => ledger.holds.length === 0,
  )

  frozen.process.kill('SIGCONT')
  // Its first heartbeat finds its row gone: it registers again and reserves its stream's hold once more. (Until then
  // another instance could take that money: the window README "Several instances" describes.)
  const [survivorId] = (await instances()).filter((id) => id !== frozenId)
  await pollUntil(
    () => admin`SELECT id FROM holds WHERE account_id = ${account.id} AND instance_id <> ${survivorId!}` as Promise<unknown[]>,
    (rows) => rows.length > 0,
  )
  // Both instances are asked for more than the balance has left (6 − 2 served − the stream = 3 requests), at once.
  const rest = (async () => {
    let text = ''
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += new TextDecoder().decode(chunk.value)
    return text
  })()
  const storm = await Promise.all(Array.from({ length: 16 }, (_, index) => askWhole(index % 2 ? survivor.url : frozen.url, secret)))
  expect((await rest).trimEnd().endsWith('data: [DONE]')).toBe(true)
  const served = storm.filter((answer) => answer.status === 200)
  expect(storm.every((answer) => answer.status === 200 || answer.status === 403)).toBe(true)
  expect(served.length).toBeLessThanOrEqual(3)

  // It registered again under a new id, and says so.
  const after = await instances()
  expect(after).toHaveLength(2)
  expect(after).not.toContain(frozenId)
  expect(await (await fetch(`${frozen.url}/metrics`)).text()).toContain('tollgate_instance_declared_gone_total 1')

  const final = await pollUntil(
    () => ledgerOf(account.id, record.id),
    (ledger) => ledger.holds.length === 0 && ledger.reserved === 0 && ledger.rows.size === 3 + served.length,
  )
  watching = false
  await watcher
  expect(lowestReserved).toBe(0)
  expect(final).toMatchObject({ reserved: 0, holds: [] })
  expect(final.balance).toBeGreaterThanOrEqual(0)
  expect(final.balance).toBe(final.credits - final.spent)
  expect(final.keySpent).toBe(final.spent)
  // The stream's debit landed once; every answer that was served is billed once, at its cost.
  expect(final.rows.get(streamId)).toBe(1)
  for (const answer of served) expect(final.rows.get(answer.id!)).toBe(1)
  expect(final.spent).toBe((3 + served.length) * requestCost)
}, 60_000)
