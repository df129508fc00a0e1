import { afterAll, beforeAll, expect, test } from 'bun:test'
import OpenAI, { toFile } from 'openai'
import { jsonl, pollUntil } from './support/batches.ts'
import { startTestGateway, type TestGateway } from './support/gateway.ts'
import { chatCompletion } from './support/openai-upstream.ts'
import { createTestDatabase } from './support/postgres.ts'
import { jsonReply, startUpstream, type TestUpstream } from './support/upstream.ts'

let database: Awaited<ReturnType<typeof createTestDatabase>>
let upstream: TestUpstream
let first: TestGateway
let second: TestGateway
const running = new Set<string>()
let overlapped = 0

beforeAll(async () => {
  database = await createTestDatabase()
  upstream = startUpstream(async (request) => {
    const text = request.body.messages[0].content as string
    if (running.has(text)) overlapped++
    running.add(text)
    await Bun.sleep(100)
    running.delete(text)
    return jsonReply(chatCompletion(request))
  })
  const config = {
    providers: [{ name: 'up', type: 'openai', base_url: `${upstream.url}/v1` }],
    models: [{ id: 'slow-1', provider: 'up', upstream_model: 'u', price: { input: 1, output: 2 }, max_output_tokens: 64 }],
    tasks: { concurrency: 2, per_account: 2 },
  }
  first = await startTestGateway({ config, database: database.url })
  second = await startTestGateway({ config, database: database.url })
}, 30_000)

afterAll(async () => {
  await first?.stop()
  await second?.stop()
  await upstream?.stop()
  await database?.drop()
}, 30_000)

test('two instances on one PostgreSQL share a batch: every item runs and is billed exactly once', async () => {
  const client = new OpenAI({ baseURL: first.baseUrl, apiKey: first.key, maxRetries: 0 })
  const lines = Array.from({ length: 24 }, (_, index) => ({
    custom_id: `i${index}`,
    method: 'POST',
    url: '/v1/chat/completions',
    body: { model: 'slow-1', messages: [{ role: 'user', content: `item ${index}` }] },
  }))
  const file = await client.files.create({ file: await toFile(Buffer.from(jsonl(lines)), 'in.jsonl'), purpose: 'batch' })
  const before = await first.settled()
  const created = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' })
  // The second instance sees the same batch (and serves its files) as the first.
  const viaSecond = new OpenAI({ baseURL: second.baseUrl, apiKey: first.key, maxRetries: 0 })
  const done = await pollUntil(
    () => viaSecond.batches.retrieve(created.id),
    (batch) => batch.status === 'completed',
    20_000,
  )
  expect(done.request_counts).toEqual({ total: 24, completed: 24, failed: 0 })
  expect(upstream.requests.length).toBe(24)
  expect(new Set(upstream.requests.map((request) => request.body.messages[0].content)).size).toBe(24)
  expect(overlapped).toBe(0)
  const output = await (await viaSecond.files.content(done.output_file_id!)).text()
  expect(output.trim().split('\n').length).toBe(24)
  await second.gateway.services.ledger.drain()
  const after = await first.settled()
  const { store } = first.gateway.services
  const task = (await store.tasks.findTask(created.id))!
  expect(task.spent).toBe(24 * (11 * 1000 + 7 * 2000))
  expect(before.balance - after.balance).toBe(task.spent)
  const rows = await store.usage.listRequests({ accountId: first.account.id }, 100)
  expect(rows.length).toBe(24)
  expect(new Set(rows.map((row) => row.requestId)).size).toBe(24)
}, 40_000)
