import { afterAll, beforeAll, expect, test } from 'bun:test'
import OpenAI from 'openai'
import { parseConfig } from '../src/config/load.ts'
import { silentLogger } from '../src/core/logger.ts'
import { startGateway, type Gateway } from '../src/gateway.ts'
import { mockConfig, startTestGateway, type TestGateway } from './support/gateway.ts'
import { createTestDatabase } from './support/postgres.ts'

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
  const results = await Promise.all(Array.from({ length: 60 }, (_, index) =>
    clients[index % 2]!.chat.completions.create({ model: 'mock-1', max_tokens: 2000, messages: [{ role: 'user', content: 'spend' }] }).then(() => 200, (error: { status?: number }) => error.status)))
  await first.gateway.services.ledger.drain()
  await second.services.ledger.drain()
  const account = (await first.gateway.services.store.accounts.findById(first.account.id))!
  const summary = await first.gateway.services.store.usage.summarize({ keyId: record.id })
  expect(results.filter((status) => status === 200).length).toBe(summary.requests)
  expect(results.every((status) => status === 200 || status === 403)).toBe(true)
  expect(account.balance).toBeGreaterThanOrEqual(0)
  expect(account.reserved).toBe(0)
  expect(before.balance - account.balance).toBe(summary.spent)
  expect(results).toContain(403)
})
