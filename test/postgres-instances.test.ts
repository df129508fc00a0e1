import { afterAll, beforeAll, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import OpenAI from 'openai'
import { parseConfig } from '../src/config/load.ts'
import { silentLogger } from '../src/core/logger.ts'
import { startGateway, type Gateway } from '../src/gateway.ts'
import { openPostgresStore } from '../src/db/postgres/store.ts'
import { mockConfig, startTestGateway, type TestGateway } from './support/gateway.ts'
import { createTestDatabase } from './support/postgres.ts'
import { bill } from './support/usage-records.ts'
import { startServe } from './support/cli.ts'

// Two gateway instances sharing one PostgreSQL database: what "scaling out" means for keys and money.
let database: Awaited<ReturnType<typeof createTestDatabase>>
let first: TestGateway
let second: Gateway

beforeAll(async () => {
  database = await createTestDatabase()
  first = await startTestGateway({ database: database.url, balanceUsd: '0.01' })
  second = await startGateway(parseConfig({ ...mockConfig, listen: { host: '127.0.0.1', port: 0 }, database: database.url }), silentLogger)
})

afterAll(async () => {
  await second.stop(500)
  await first.stop()
  await database.drop()
})

test('a key works on every instance, and a revocation on one is honoured by the other within a second', async () => {
  const onSecond = new OpenAI({ baseURL: `${second.url}/v1`, apiKey: first.key, maxRetries: 0 })
  const answer = await onSecond.chat.completions.create({ model: 'mock-1', messages: [{ role: 'user', content: 'hello postgres' }] })
  expect(answer.choices[0]!.message.content).toContain('hello postgres')
  await first.gateway.services.store.keys.revoke(first.keyRecord.id, Date.now())
  await Bun.sleep(1000)
  expect(await onSecond.models.list().catch((error: unknown) => error)).toBeInstanceOf(OpenAI.AuthenticationError)
})

test('both instances bill one balance without overdrawing it', async () => {
  const { secret, record } = await first.createKey()
  await first.gateway.services.ledger.drain()
  await second.services.ledger.drain()
  const before = (await first.gateway.services.store.accounts.findById(first.account.id))!
  const clients = [first.url, second.url].map((url) => new OpenAI({ baseURL: `${url}/v1`, apiKey: secret, maxRetries: 0 }))
  const results = await Promise.all(
    Array.from({ length: 60 }, (_, index) =>
      clients[index % 2]!.chat.completions.create({
        model: 'mock-1',
        max_tokens: 2000,
        messages: [{ role: 'user', content: 'spend' }],
      }).then(
        () => 200,
        (error: { status?: number }) => error.status,
      ),
    ),
  )
  await first.gateway.services.ledger.drain()
  await second.services.ledger.drain()
  const account = (await first.gateway.services.store.accounts.findById(first.account.id))!
  const summary = await first.gateway.services.store.usage.summarize({ keyId: record.id })
  // Every request left a row; the refused ones (403) cost nothing.
  expect(summary.requests).toBe(60)
  const served = await first.gateway.services.store.usage.summarize({ keyId: record.id, statusMin: 200, statusMax: 299 })
  expect(results.filter((status) => status === 200).length).toBe(served.requests)
  expect(results.every((status) => status === 200 || status === 403)).toBe(true)
  expect(account.balance).toBeGreaterThanOrEqual(0)
  expect(account.reserved).toBe(0)
  expect(before.balance - account.balance).toBe(summary.spent)
  expect(results).toContain(403)
})

/** Another instance on the same database, started in this process. */
const startInstance = () =>
  startGateway(parseConfig({ ...mockConfig, listen: { host: '127.0.0.1', port: 0 }, database: database.url }), silentLogger)

test('an instance starting leaves the hold of a live one alone, however long its request has run', async () => {
  const account = await first.createAccount(`live-${Date.now()}`, '1')
  const { record } = await first.createKey({ accountId: account.id })
  const ledger = first.gateway.services.ledger
  const hold = await ledger.placeHold(account.id, record.id, 50_000)
  const admin = new SQL(database.url, { max: 1 })
  // As far as its row's time can tell, this lease has served one request for an hour: but its instance is alive.
  await admin`UPDATE holds SET created_at = created_at - 3600000 WHERE id = ${hold.id}`
  const store = first.gateway.services.store
  const before = (await store.accounts.findById(account.id))!
  expect(before.reserved).toBeGreaterThanOrEqual(50_000)
  const third = await startInstance()
  try {
    expect((await admin`SELECT id FROM holds WHERE id = ${hold.id}`).length).toBe(1)
    expect((await store.accounts.findById(account.id))!.reserved).toBe(before.reserved)
  } finally {
    await third.stop(500)
  }
  void ledger.settle(hold, {
    ...bill(account.id, record.id, 3000),
    requestId: 'req_live',
    model: 'mock-1',
    provider: 'mock',
    upstreamModel: 'mock-1',
  })
  await ledger.drain()
  expect((await store.accounts.findById(account.id))!).toMatchObject({ reserved: 0, balance: 1_000_000_000 - 3000 })
  await admin.close()
})

test('a serve killed by SIGKILL: its hold stays while its heartbeat is fresh, and the next start after the timeout releases it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-pg-'))
  const config = join(dir, 'tollgate.yaml')
  writeFileSync(
    config,
    `listen: { host: 127.0.0.1, port: 0 }
database: ${database.url}
providers:
  - { name: slow, type: mock, chunk_delay_ms: 80 }
models:
  - { id: slow, provider: slow, price: { input: 1, output: 2 } }
`,
  )
  const account = await first.createAccount(`dead-${Date.now()}`, '1')
  const { secret } = await first.createKey({ accountId: account.id })
  const serve = await startServe(['bun', 'src/main.ts'], config)
  const response = await fetch(`${serve.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'slow', stream: true, messages: [{ role: 'user', content: 'one two three four five six seven eight' }] }),
  })
  await response.body!.getReader().read() // the answer has begun: its hold is placed
  serve.process.kill('SIGKILL')
  await serve.process.exited

  const admin = new SQL(database.url, { max: 1 })
  const holdsOf = () =>
    admin`SELECT id, instance_id FROM holds WHERE account_id = ${account.id}` as Promise<{ id: string; instance_id: string }[]>
  const store = first.gateway.services.store
  const [hold] = await holdsOf()
  expect(hold?.instance_id).toStartWith('inst_')
  // Dead, but its heartbeat is still within the timeout: nothing proves it gone yet, so its hold is kept.
  const early = await startInstance()
  await early.stop(500)
  expect(await holdsOf()).toEqual([hold!])
  expect((await store.accounts.findById(account.id))!.reserved).toBeGreaterThan(0)

  // The timeout passes (its heartbeat, stopped, is now an hour old): the next start releases the hold.
  await admin`UPDATE instances SET heartbeat_at = heartbeat_at - 3600000 WHERE id = ${hold!.instance_id}`
  const later = await startInstance()
  await later.stop(500)
  expect(await holdsOf()).toEqual([])
  expect((await store.accounts.findById(account.id))!).toMatchObject({ reserved: 0, balance: 1_000_000_000 })
  expect((await admin`SELECT id FROM instances WHERE id = ${hold!.instance_id}`).length).toBe(0)
  await admin.close()
}, 30_000)

test('a serving instance releases the holds of one that died meanwhile, without waiting for anyone to start', async () => {
  const account = await first.createAccount(`sweep-${Date.now()}`, '1')
  const admin = new SQL(database.url, { max: 1 })
  // Beats every 50 ms, calls an instance gone after 200 ms of silence, and so sweeps about every 200 ms.
  const serving = openPostgresStore(database.url, { heartbeatMs: 50, timeoutMs: 200 })
  try {
    await serving.ledger.startServing(0)
    // An instance that started after this one and died with a request in flight: its heartbeat stopped a minute ago.
    await admin`INSERT INTO instances (id, started_at, heartbeat_at) VALUES ('inst_died', ${Date.now() - 120_000}, ${Date.now() - 60_000})`
    await admin`INSERT INTO holds (id, account_id, key_id, amount, created_at, instance_id) VALUES ('lease_died', ${account.id}, 'key_x', 70000, ${Date.now()}, 'inst_died')`
    await admin`UPDATE accounts SET reserved = reserved + 70000 WHERE id = ${account.id}`
    const deadline = Date.now() + 3000
    while (Date.now() < deadline && (await admin`SELECT id FROM holds WHERE id = 'lease_died'`).length > 0) await Bun.sleep(20)
    expect(await admin`SELECT id FROM holds WHERE id = 'lease_died'`).toEqual([])
    expect((await first.gateway.services.store.accounts.findById(account.id))!).toMatchObject({ reserved: 0, balance: 1_000_000_000 })
    expect(await admin`SELECT id FROM instances WHERE id = 'inst_died'`).toEqual([])
  } finally {
    await serving.close()
    await admin.close()
  }
})
