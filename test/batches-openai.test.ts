import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import OpenAI, { toFile } from 'openai'
import { jsonl, pollUntil, startBatchSetup, type BatchSetup } from './support/batches.ts'

let setup: BatchSetup
let client: OpenAI

beforeAll(async () => {
  setup = await startBatchSetup()
  client = new OpenAI({ baseURL: setup.gateway.baseUrl, apiKey: setup.gateway.key, maxRetries: 0 })
})

afterAll(() => setup.stop())

const line = (customId: string, model: string, text = 'hi') => ({
  custom_id: customId,
  method: 'POST',
  url: '/v1/chat/completions',
  body: { model, messages: [{ role: 'user', content: text }] },
})

async function upload(lines: unknown[] | string) {
  return client.files.create({
    file: await toFile(Buffer.from(typeof lines === 'string' ? lines : jsonl(lines)), 'input.jsonl'),
    purpose: 'batch',
  })
}

/** What a call threw (the SDK's APIPromise is awaited, not handed to expect().rejects). */
async function rejection(promise: PromiseLike<unknown>): Promise<any> {
  try {
    await promise
  } catch (error) {
    return error
  }
  throw new Error('expected the call to fail')
}

const terminal = new Set(['completed', 'failed', 'expired', 'cancelled'])

/** The batch's output and error files, each line parsed, by custom_id. */
async function resultsOf(batch: OpenAI.Batch) {
  const byId = new Map<string, any>()
  for (const fileId of [batch.output_file_id, batch.error_file_id]) {
    if (!fileId) continue
    const text = await (await client.files.content(fileId)).text()
    for (const row of text.trim().split('\n')) {
      const parsed = JSON.parse(row)
      expect(byId.has(parsed.custom_id)).toBe(false)
      byId.set(parsed.custom_id, parsed)
    }
  }
  return byId
}

describe('OpenAI Batch API', () => {
  test('one batch reaches a chat model on each upstream kind; each item is billed at the batch price, exactly once', async () => {
    const before = await setup.gateway.settled()
    const file = await upload([line('to-openai', 'gpt-up'), line('to-anthropic', 'claude-up'), line('to-gemini', 'gemini-up')])
    expect(file).toMatchObject({ object: 'file', purpose: 'batch', status: 'processed', filename: 'input.jsonl' })
    expect((await client.files.retrieve(file.id)).bytes).toBe(file.bytes)
    const created = await client.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
      metadata: { job: 'nightly' },
    })
    expect(created).toMatchObject({
      object: 'batch',
      endpoint: '/v1/chat/completions',
      input_file_id: file.id,
      metadata: { job: 'nightly' },
    })
    expect(created.request_counts!.total).toBe(3)
    const batch = await pollUntil(
      () => client.batches.retrieve(created.id),
      (value) => terminal.has(value.status),
    )
    expect(batch.status).toBe('completed')
    expect(batch.request_counts).toEqual({ total: 3, completed: 3, failed: 0 })
    expect(batch.error_file_id).toBeNull()
    const results = await resultsOf(batch)
    expect(results.get('to-openai').response.body.choices[0].message.content).toBe('Hello from upstream')
    expect(results.get('to-anthropic').response.body.choices[0].message.content).toBe('Hello from upstream')
    expect(results.get('to-gemini').response.body.choices[0].message.content).toBe('Hello from gemini upstream')
    for (const result of results.values()) {
      expect(result.response.status_code).toBe(200)
      expect(result.error).toBeNull()
      expect(result.id).toStartWith('batch_req_')
      expect(result.response.request_id).toBe(result.id)
    }

    // Batch prices, to the nano-dollar: OpenAI 11 prompt (3 cached, at the batch input price) + 7 out; Anthropic
    // 5 + 4 cache reads + 2 cache writes in, 7 out; Gemini 11 in (3 cached) + 5 out + 2 thoughts.
    const openAiCost = 11 * 1000 + 7 * 2000
    const anthropicCost = 11 * 1500 + 7 * 7500
    const geminiCost = 11 * 625 + 7 * 5000
    const after = await setup.gateway.settled()
    expect(before.balance - after.balance).toBe(openAiCost + anthropicCost + geminiCost)
    expect(after.reserved).toBe(0)
    const { store } = setup.gateway.gateway.services
    const task = (await store.tasks.findTask(batch.id))!
    expect(task.spent).toBe(openAiCost + anthropicCost + geminiCost)
    const items = await store.tasks.items(batch.id, -1, 10)
    expect(items.map((item) => item.cost)).toEqual([openAiCost, anthropicCost, geminiCost])
    // Each item's usage row carries its id, once.
    const rows = await store.usage.listRequests({ accountId: setup.gateway.account.id }, 100)
    for (const item of items) expect(rows.filter((row) => row.requestId === item.id).length).toBe(1)
  })

  test("an upstream error goes to the error file in OpenAI's shape and costs nothing", async () => {
    const file = await upload([line('fine', 'mock-1'), line('bad', 'gpt-broken')])
    const created = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' })
    const batch = await pollUntil(
      () => client.batches.retrieve(created.id),
      (value) => terminal.has(value.status),
    )
    expect(batch.status).toBe('completed')
    expect(batch.request_counts).toEqual({ total: 2, completed: 1, failed: 1 })
    const results = await resultsOf(batch)
    expect(results.get('fine').response.status_code).toBe(200)
    const bad = results.get('bad')
    expect(bad.response.status_code).toBeGreaterThanOrEqual(400)
    expect(bad.response.body.error.message).toBeString()
    expect(bad.error).toBeNull()
  })

  test('files list, retrieve, content and delete; batches list pages newest first', async () => {
    const file = await upload([line('a', 'mock-1')])
    const listed = await client.files.list()
    expect(listed.data.some((entry) => entry.id === file.id)).toBe(true)
    expect(await (await client.files.content(file.id)).text()).toBe(jsonl([line('a', 'mock-1')]))
    const ids: string[] = []
    for (let index = 0; index < 3; index++)
      ids.push((await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' })).id)
    const page = await client.batches.list({ limit: 2 })
    expect(page.data.map((batch) => batch.id)).toEqual([ids[2]!, ids[1]!])
    expect(page.has_more).toBe(true)
    const seen: string[] = []
    for await (const batch of client.batches.list({ limit: 2 })) seen.push(batch.id)
    expect(seen.slice(0, 3)).toEqual([ids[2]!, ids[1]!, ids[0]!])
    expect(await client.files.delete(file.id)).toMatchObject({ id: file.id, deleted: true })
    expect(await rejection(client.files.retrieve(file.id))).toMatchObject({ status: 404 })
  })

  test('validation names the line: bad JSON, duplicate custom_id, unknown model, wrong url, forbidden model', async () => {
    const create = async (text: string) => {
      const file = await upload(text)
      return client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' })
    }
    expect(await rejection(create(jsonl([line('a', 'mock-1')]) + '{not json\n'))).toMatchObject({
      status: 400,
      message: expect.stringContaining('line 2'),
    })
    expect(await rejection(create(jsonl([line('a', 'mock-1'), line('a', 'mock-1')])))).toMatchObject({
      status: 400,
      message: expect.stringMatching(/line 2.*custom_id 'a'.*line 1/),
    })
    expect(await rejection(create(jsonl([line('a', 'mock-1'), line('b', 'nope')])))).toMatchObject({
      status: 400,
      message: expect.stringMatching(/line 2.*nope/),
    })
    expect(await rejection(create(jsonl([{ ...line('a', 'mock-1'), url: '/v1/responses' }])))).toMatchObject({
      status: 400,
      message: expect.stringContaining("line 1 (custom_id a): 'url'"),
    })
    const limited = await setup.gateway.createKey({ models: ['mock-1'] })
    const other = new OpenAI({ baseURL: setup.gateway.baseUrl, apiKey: limited.secret, maxRetries: 0 })
    const file = await other.files.create({
      file: await toFile(Buffer.from(jsonl([line('a', 'mock-1'), line('b', 'gpt-up')])), 'x.jsonl'),
      purpose: 'batch',
    })
    expect(
      await rejection(other.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' })),
    ).toMatchObject({ status: 400, message: expect.stringMatching(/line 2.*not permitted.*gpt-up/) })
  })

  test('unknown and foreign IDs are 404 on every endpoint, naming the ID', async () => {
    const file = await upload([line('a', 'mock-1')])
    const batch = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' })
    const stranger = await setup.gateway.createAccount('stranger-openai', '10')
    const { createKey } = await import('../src/domain/keys.ts')
    const { secret } = await createKey(setup.gateway.gateway.services.store.keys, { accountId: stranger.id })
    const foreign = new OpenAI({ baseURL: setup.gateway.baseUrl, apiKey: secret, maxRetries: 0 })
    for (const [id, call] of [
      [batch.id, () => foreign.batches.retrieve(batch.id)],
      [batch.id, () => foreign.batches.cancel(batch.id)],
      ['batch_nope', () => client.batches.retrieve('batch_nope')],
      [file.id, () => foreign.files.retrieve(file.id)],
      [file.id, () => foreign.files.content(file.id)],
      [file.id, () => foreign.files.delete(file.id)],
      ['file-nope', () => client.files.retrieve('file-nope')],
    ] as const) {
      expect(await rejection(call())).toMatchObject({ status: 404, message: expect.stringContaining(id) })
    }
    expect(
      await rejection(foreign.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' })),
    ).toMatchObject({ status: 404 })
  })

  test('cancel mid-batch: running items finish and are billed, the rest end batch_cancelled, nothing else is billed', async () => {
    const before = await setup.gateway.settled()
    const file = await upload(Array.from({ length: 12 }, (_, index) => line(`c${index}`, 'gpt-slow')))
    const created = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' })
    await pollUntil(
      () => client.batches.retrieve(created.id),
      (value) => value.request_counts!.completed >= 1,
    )
    const cancelling = await client.batches.cancel(created.id)
    expect(['cancelling', 'cancelled']).toContain(cancelling.status)
    expect(cancelling.cancelling_at).toBeNumber()
    const batch = await pollUntil(
      () => client.batches.retrieve(created.id),
      (value) => terminal.has(value.status),
    )
    expect(batch.status).toBe('cancelled')
    const counts = batch.request_counts!
    expect(counts.total).toBe(12)
    expect(counts.completed).toBeGreaterThanOrEqual(1)
    expect(counts.completed).toBeLessThan(12)
    expect(counts.completed + counts.failed).toBe(12)
    const results = await resultsOf(batch)
    expect(results.size).toBe(12)
    const cancelled = [...results.values()].filter((result) => result.error?.code === 'batch_cancelled')
    expect(cancelled.length).toBe(12 - counts.completed)
    expect(cancelled.every((result) => result.response === null)).toBe(true)
    // Each answered item: 11 prompt tokens (3 cached at the input price) + 7 out at the live price (no batch price).
    expect(before.balance - (await setup.gateway.settled()).balance).toBe(counts.completed * (11 * 1000 + 7 * 2000))
  })

  test('a balance that covers only some items: the rest end insufficient_balance, the batch completes, no overdraft', async () => {
    const poor = await setup.gateway.createAccount('poor-openai', '0.0012')
    const { createKey } = await import('../src/domain/keys.ts')
    const { store } = setup.gateway.gateway.services
    const { secret } = await createKey(store.keys, { accountId: poor.id })
    const poorClient = new OpenAI({ baseURL: setup.gateway.baseUrl, apiKey: secret, maxRetries: 0 })
    const file = await poorClient.files.create({
      file: await toFile(Buffer.from(jsonl(Array.from({ length: 30 }, (_, index) => line(`p${index}`, 'gpt-up')))), 'p.jsonl'),
      purpose: 'batch',
    })
    const created = await poorClient.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' })
    const batch = await pollUntil(
      () => poorClient.batches.retrieve(created.id),
      (value) => terminal.has(value.status),
    )
    expect(batch.status).toBe('completed')
    const counts = batch.request_counts!
    expect(counts.completed).toBeGreaterThan(0)
    expect(counts.failed).toBeGreaterThan(0)
    const errors = (await (await poorClient.files.content(batch.error_file_id!)).text())
      .trim()
      .split('\n')
      .map((row) => JSON.parse(row))
    expect(errors.length).toBe(counts.failed)
    for (const error of errors)
      expect(error.response).toMatchObject({ status_code: 403, body: { error: { code: 'insufficient_balance' } } })
    await setup.gateway.gateway.services.ledger.drain()
    const after = (await store.accounts.findById(poor.id))!
    expect(after.balance).toBeGreaterThanOrEqual(0)
    expect(after.reserved).toBe(0)
    expect(1_200_000 - after.balance).toBe(counts.completed * (11 * 1000 + 7 * 2000))
  }, 30_000)
})
