import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import Anthropic from '@anthropic-ai/sdk'
import { GoogleGenAI } from '@google/genai'
import OpenAI, { toFile } from 'openai'
import type { ItemRecord, TaskRecord } from '../src/domain/tasks/records.ts'
import { jsonl, pollUntil, startBatchSetup, type BatchSetup } from './support/batches.ts'

/**
 * A batch whose completion window passes expires: the items running then finish and are billed, the rest end expired,
 * and each protocol says so in its own shape. The window is `tasks.window_s` (24 h by default), 1 s here; items go to
 * an upstream that answers in 200 ms, two at a time per account, so about ten of twenty run in time.
 */
let setup: BatchSetup
const items = 20
/** A gpt-slow answer: 11 prompt tokens (no cached price, so all at the input price) + 7 out. */
const itemCost = 11 * 1000 + 7 * 2000

beforeAll(async () => {
  setup = await startBatchSetup({ tasks: { window_s: 1 } })
})

afterAll(() => setup.stop())

/**
 * The task as stored, checked the same way for every protocol: some items ran, the rest expired; an item running
 * when the window closed finished after it, answered and billed; the account paid for exactly the answered ones.
 */
async function checkExpired(id: string, balanceBefore: number): Promise<{ task: TaskRecord; items: ItemRecord[] }> {
  const { store } = setup.gateway.gateway.services
  const task = (await store.tasks.findTask(id))!
  expect(task.status).toBe('expired')
  expect(task.expiresAt - task.createdAt).toBe(1000)
  expect(task.succeeded).toBeGreaterThan(0)
  expect(task.expired).toBeGreaterThan(0)
  expect(task.succeeded + task.expired).toBe(items)
  const stored = await store.tasks.items(id, -1, 100)
  expect(stored.some((item) => item.status === 'succeeded' && item.finishedAt! > task.expiresAt)).toBe(true)
  expect(stored.filter((item) => item.status === 'expired').every((item) => item.cost === 0 && item.startedAt === null)).toBe(true)
  const after = await setup.gateway.settled()
  expect(balanceBefore - after.balance).toBe(task.succeeded * itemCost)
  expect(task.spent).toBe(task.succeeded * itemCost)
  expect(after.reserved).toBe(0)
  return { task, items: stored }
}

describe('a batch past its completion window expires', () => {
  test('OpenAI: status expired with expired_at and request_counts; unrun requests end batch_expired in the error file', async () => {
    const client = new OpenAI({ baseURL: setup.gateway.baseUrl, apiKey: setup.gateway.key, maxRetries: 0 })
    const before = await setup.gateway.settled()
    const lines = Array.from({ length: items }, (_, index) => ({
      custom_id: `e${index}`,
      method: 'POST',
      url: '/v1/chat/completions',
      body: { model: 'gpt-slow', messages: [{ role: 'user', content: 'hi' }] },
    }))
    const file = await client.files.create({ file: await toFile(Buffer.from(jsonl(lines)), 'expiring.jsonl'), purpose: 'batch' })
    const created = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' })
    expect(created.expires_at! - created.created_at).toBe(1)
    const batch = await pollUntil(
      () => client.batches.retrieve(created.id),
      (value) => value.status === 'expired',
    )
    expect(batch.expired_at).toBeNumber()
    const { task } = await checkExpired(batch.id, before.balance)
    expect(batch.request_counts).toEqual({ total: items, completed: task.succeeded, failed: task.expired })
    const errors = (await (await client.files.content(batch.error_file_id!)).text())
      .trim()
      .split('\n')
      .map((row) => JSON.parse(row))
    expect(errors.length).toBe(task.expired)
    for (const error of errors) expect(error).toMatchObject({ response: null, error: { code: 'batch_expired' } })
    const output = (await (await client.files.content(batch.output_file_id!)).text()).trim().split('\n')
    expect(output.length).toBe(task.succeeded)
  })

  test('Anthropic: ended with request_counts.expired; results() say expired for the requests not run', async () => {
    const client = new Anthropic({ baseURL: setup.gateway.url, apiKey: setup.gateway.key, maxRetries: 0 })
    const before = await setup.gateway.settled()
    const requests = Array.from({ length: items }, (_, index) => ({
      custom_id: `e${index}`,
      params: { model: 'gpt-slow', max_tokens: 64, messages: [{ role: 'user' as const, content: 'hi' }] },
    }))
    const created = await client.messages.batches.create({ requests })
    const ended = await pollUntil(
      () => client.messages.batches.retrieve(created.id),
      (batch) => batch.processing_status === 'ended',
    )
    const { task } = await checkExpired(created.id, before.balance)
    expect(ended.request_counts).toEqual({ processing: 0, succeeded: task.succeeded, errored: 0, canceled: 0, expired: task.expired })
    const types = new Map<string, number>()
    for await (const line of await client.messages.batches.results(created.id))
      types.set(line.result.type, (types.get(line.result.type) ?? 0) + 1)
    expect(Object.fromEntries(types)).toEqual({ succeeded: task.succeeded, expired: task.expired })
  })

  test('Gemini: JOB_STATE_EXPIRED; the requests not run carry an error in their inlined response', async () => {
    const ai = new GoogleGenAI({ apiKey: setup.gateway.key, httpOptions: { baseUrl: setup.gateway.url, apiVersion: 'v1beta' } })
    const before = await setup.gateway.settled()
    const src = Array.from({ length: items }, (_, index) => ({
      contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
      metadata: { key: `e${index}` },
    }))
    const job = await ai.batches.create({ model: 'gpt-slow', src })
    const done = await pollUntil(
      () => ai.batches.get({ name: job.name! }),
      (value) => String(value.state) === 'JOB_STATE_EXPIRED',
    )
    const { task } = await checkExpired(job.name!.slice('batches/'.length), before.balance)
    const responses = done.dest!.inlinedResponses!
    expect(responses.length).toBe(items)
    expect(responses.filter((entry) => entry.response).length).toBe(task.succeeded)
    const unrun = responses.filter((entry) => entry.error)
    expect(unrun.length).toBe(task.expired)
    for (const entry of unrun) expect(entry.error!.message).toContain('expired')
  })
})
