import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import Anthropic from '@anthropic-ai/sdk'
import { pollUntil, startBatchSetup, type BatchSetup } from './support/batches.ts'
import { failure } from './support/failure.ts'

let setup: BatchSetup
let client: Anthropic

beforeAll(async () => {
  setup = await startBatchSetup()
  client = new Anthropic({ baseURL: setup.gateway.url, apiKey: setup.gateway.key, maxRetries: 0 })
})

afterAll(() => setup.stop())

const request = (customId: string, model: string) => ({
  custom_id: customId,
  params: { model, max_tokens: 64, messages: [{ role: 'user' as const, content: 'hi' }] },
})

describe('Anthropic Message Batches', () => {
  test("create, retrieve until ended, results(): each upstream kind answers in Anthropic's shape, billed at batch prices", async () => {
    const before = await setup.gateway.settled()
    const created = await client.messages.batches.create({
      requests: [request('a', 'claude-up'), request('o', 'gpt-up'), request('g', 'gemini-up')],
    })
    expect(created).toMatchObject({ type: 'message_batch', processing_status: 'in_progress', results_url: null })
    expect(created.request_counts.processing).toBe(3)
    const ended = await pollUntil(
      () => client.messages.batches.retrieve(created.id),
      (batch) => batch.processing_status === 'ended',
    )
    expect(ended.request_counts).toEqual({ processing: 0, succeeded: 3, errored: 0, canceled: 0, expired: 0 })
    expect(ended.results_url).toBe(`${setup.gateway.url}/v1/messages/batches/${created.id}/results`)
    const results = new Map<string, any>()
    for await (const line of await client.messages.batches.results(created.id)) results.set(line.custom_id, line.result)
    expect(results.size).toBe(3)
    for (const result of results.values()) {
      expect(result.type).toBe('succeeded')
      expect(result.message.type).toBe('message')
      expect(result.message.content[0].type).toBe('text')
    }
    expect(results.get('a').message.content[0].text).toBe('Hello from upstream')
    expect(
      results
        .get('g')
        .message.content.map((block: any) => block.text)
        .join(''),
    ).toBe('Hello from gemini upstream')
    const cost = 11 * 1500 + 7 * 7500 + (11 * 1000 + 7 * 2000) + (11 * 625 + 7 * 5000)
    expect(before.balance - (await setup.gateway.settled()).balance).toBe(cost)
    expect((await setup.gateway.gateway.services.store.tasks.findTask(created.id))!.spent).toBe(cost)
  })

  test('an errored item, list paging, delete once ended', async () => {
    const created = await client.messages.batches.create({ requests: [request('ok', 'mock-1'), request('bad', 'gpt-broken')] })
    await pollUntil(
      () => client.messages.batches.retrieve(created.id),
      (batch) => batch.processing_status === 'ended',
    )
    const results = new Map<string, any>()
    for await (const line of await client.messages.batches.results(created.id)) results.set(line.custom_id, line.result)
    expect(results.get('ok').type).toBe('succeeded')
    expect(results.get('bad')).toMatchObject({
      type: 'errored',
      error: { type: 'error', error: { type: expect.any(String), message: expect.any(String) } },
    })
    const second = await client.messages.batches.create({ requests: [request('x', 'mock-1')] })
    const page = await client.messages.batches.list({ limit: 1 })
    expect(page.data.map((batch) => batch.id)).toEqual([second.id])
    expect(page.has_more).toBe(true)
    const all: string[] = []
    for await (const batch of client.messages.batches.list({ limit: 1 })) all.push(batch.id)
    expect(all.slice(0, 2)).toEqual([second.id, created.id])
    expect(await client.messages.batches.delete(created.id)).toEqual({ id: created.id, type: 'message_batch_deleted' })
    expect(await failure(client.messages.batches.retrieve(created.id))).toMatchObject({ status: 404 })
  })

  test('validation names the request: duplicate custom_id, unknown model, malformed params', async () => {
    expect(await failure(client.messages.batches.create({ requests: [request('a', 'mock-1'), request('a', 'mock-1')] }))).toMatchObject({
      status: 400,
      message: expect.stringMatching(/requests\[1\].*custom_id 'a'/),
    })
    expect(await failure(client.messages.batches.create({ requests: [request('a', 'mock-1'), request('b', 'nope')] }))).toMatchObject({
      status: 400,
      message: expect.stringMatching(/requests\[1\] \(custom_id b\).*nope/),
    })
    expect(
      await failure(client.messages.batches.create({ requests: [{ custom_id: 'a', params: { model: 'mock-1', messages: 'x' } as any }] })),
    ).toMatchObject({ status: 400, message: expect.stringContaining('requests[0]') })
  })

  test("cancel; unknown and foreign IDs are 404 in Anthropic's shape on every endpoint", async () => {
    const created = await client.messages.batches.create({
      requests: Array.from({ length: 8 }, (_, index) => request(`s${index}`, 'gpt-slow')),
    })
    const cancelling = await client.messages.batches.cancel(created.id)
    expect(['canceling', 'ended']).toContain(cancelling.processing_status)
    expect(cancelling.cancel_initiated_at).toBeString()
    const ended = await pollUntil(
      () => client.messages.batches.retrieve(created.id),
      (batch) => batch.processing_status === 'ended',
    )
    expect(ended.request_counts.canceled).toBeGreaterThan(0)
    expect(ended.request_counts.succeeded + ended.request_counts.canceled).toBe(8)

    const stranger = await setup.gateway.createAccount('stranger-anthropic', '10')
    const { createKey } = await import('../src/domain/keys.ts')
    const { secret } = await createKey(setup.gateway.gateway.services.store.keys, { accountId: stranger.id })
    const foreign = new Anthropic({ baseURL: setup.gateway.url, apiKey: secret, maxRetries: 0 })
    for (const [id, call] of [
      [created.id, () => foreign.messages.batches.retrieve(created.id)],
      [created.id, () => foreign.messages.batches.cancel(created.id)],
      [created.id, () => foreign.messages.batches.delete(created.id)],
      [
        created.id,
        () =>
          fetch(`${setup.gateway.url}/v1/messages/batches/${created.id}/results`, {
            headers: { 'x-api-key': secret, 'anthropic-version': '2023-06-01' },
          }).then(async (response) => {
            throw Object.assign(new Error((await response.json()).error.message), { status: response.status })
          }),
      ],
      ['msgbatch_nope', () => client.messages.batches.retrieve('msgbatch_nope')],
    ] as const) {
      const error = await failure(call())
      expect(error).toMatchObject({ status: 404, message: expect.stringContaining(id) })
    }
    const raw = await fetch(`${setup.gateway.url}/v1/messages/batches/msgbatch_nope`, { headers: { 'x-api-key': setup.gateway.key } })
    expect(await raw.json()).toMatchObject({ type: 'error', error: { type: 'not_found_error' } })
  })
})
