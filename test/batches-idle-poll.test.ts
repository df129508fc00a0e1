import { afterAll, beforeAll, expect, test } from 'bun:test'
import OpenAI, { toFile } from 'openai'
import { jsonl, pollUntil, startBatchSetup, type BatchSetup } from './support/batches.ts'

/**
 * The batch runner polls the store four times a second while there is batch work anywhere, and eight times less
 * often while there is none (tasks/runner.ts): an idle gateway's polls woke its event loop eight times a second
 * whatever the traffic. A batch stored meanwhile still starts at once, and ends as promptly as on a busy runner.
 */
let setup: BatchSetup
let asked = 0

beforeAll(async () => {
  setup = await startBatchSetup()
  const repository = setup.gateway.gateway.services.store.tasks
  const hasWork = repository.hasWork.bind(repository)
  repository.hasWork = () => {
    asked++
    return hasWork()
  }
})

afterAll(() => setup.stop())

test('an idle store is asked for work every 2 s, not every 250 ms; a batch stored meanwhile ends within a second', async () => {
  await Bun.sleep(500) // the first polls find nothing: the runner is quiet from here
  const before = asked
  await Bun.sleep(1600)
  expect(asked - before).toBeLessThanOrEqual(1) // busy pace: 6 or 7

  const openai = new OpenAI({ baseURL: setup.gateway.baseUrl, apiKey: setup.gateway.key, maxRetries: 0 })
  const line = {
    custom_id: 'a',
    method: 'POST',
    url: '/v1/chat/completions',
    body: { model: 'mock-1', messages: [{ role: 'user', content: 'hi' }] },
  }
  const file = await openai.files.create({ file: await toFile(Buffer.from(jsonl([line])), 'a.jsonl'), purpose: 'batch' })
  // Right after an idle poll, so that the next one is 2 s away: the batch must not wait for it.
  const polled = asked
  while (asked === polled) await Bun.sleep(5)
  const started = performance.now()
  const batch = await openai.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' })
  const ended = await pollUntil(
    () => openai.batches.retrieve(batch.id),
    (one) => one.status === 'completed',
    10_000,
  )
  expect(ended.request_counts).toEqual({ total: 1, completed: 1, failed: 0 })
  expect(performance.now() - started).toBeLessThan(1000)
}, 20_000)
