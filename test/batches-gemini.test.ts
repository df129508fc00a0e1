import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { GoogleGenAI } from '@google/genai'
import { pollUntil, startBatchSetup, type BatchSetup } from './support/batches.ts'
import { failure } from './support/failure.ts'

let setup: BatchSetup

beforeAll(async () => {
  setup = await startBatchSetup()
})

afterAll(() => setup.stop())

/** The SDK as shipped (it defaults to /v1, where /v1/batches is OpenAI's too) and on the documented /v1beta. */
const clients = () => ({
  v1: new GoogleGenAI({ apiKey: setup.gateway.key, httpOptions: { baseUrl: setup.gateway.url } }),
  v1beta: new GoogleGenAI({ apiKey: setup.gateway.key, httpOptions: { baseUrl: setup.gateway.url, apiVersion: 'v1beta' } }),
})

const ended = new Set(['JOB_STATE_SUCCEEDED', 'JOB_STATE_FAILED', 'JOB_STATE_CANCELLED', 'JOB_STATE_EXPIRED'])

describe('Gemini Batch Mode', () => {
  for (const version of ['v1', 'v1beta'] as const) {
    test(`batches.create with inlined requests + batches.get (${version}): answers in order, with metadata, billed at the batch price`, async () => {
      const ai = clients()[version]
      const before = await setup.gateway.settled()
      const job = await ai.batches.create({
        model: 'gemini-up',
        src: [
          { contents: [{ role: 'user', parts: [{ text: 'hi' }] }], metadata: { key: 'first' } },
          { contents: [{ role: 'user', parts: [{ text: 'hello' }] }], metadata: { key: 'second' } },
        ],
        config: { displayName: 'nightly' },
      })
      expect(job.name).toStartWith('batches/')
      expect(job.displayName).toBe('nightly')
      expect(['JOB_STATE_PENDING', 'JOB_STATE_RUNNING', 'JOB_STATE_SUCCEEDED']).toContain(job.state!)
      const done = await pollUntil(
        () => ai.batches.get({ name: job.name! }),
        (value) => ended.has(String(value.state)),
      )
      expect(String(done.state)).toBe('JOB_STATE_SUCCEEDED')
      expect(done.model).toBe('models/gemini-up')
      const responses = done.dest!.inlinedResponses!
      expect(responses.map((entry) => entry.metadata)).toEqual([{ key: 'first' }, { key: 'second' }])
      for (const entry of responses)
        expect(entry.response!.candidates![0]!.content!.parts!.map((part) => part.text).join('')).toBe('Hello from gemini upstream')
      // 11 prompt tokens (3 cached, at the batch input price) + 5 candidates + 2 thoughts, per item.
      expect(before.balance - (await setup.gateway.settled()).balance).toBe(2 * (11 * 625 + 7 * 5000))
    })
  }

  test('the same model list and limits as live traffic; list, cancel, delete; OpenAI clients keep /v1/batches', async () => {
    const { v1 } = clients()
    const error = await failure(v1.batches.create({ model: 'nope', src: [{ contents: [{ role: 'user', parts: [{ text: 'x' }] }] }] }))
    expect(error.status).toBe(400)
    expect(error.message).toContain('requests[0]')
    expect(error.message).toContain('nope')
    const slow = await v1.batches.create({
      model: 'gpt-slow',
      src: Array.from({ length: 6 }, () => ({ contents: [{ role: 'user', parts: [{ text: 'x' }] }] })),
    })
    await v1.batches.cancel({ name: slow.name! })
    const cancelled = await pollUntil(
      () => v1.batches.get({ name: slow.name! }),
      (value) => ended.has(String(value.state)),
    )
    expect(String(cancelled.state)).toBe('JOB_STATE_CANCELLED')
    const listed: string[] = []
    for await (const job of await v1.batches.list({ config: { pageSize: 1 } })) listed.push(job.name!)
    expect(listed[0]).toBe(slow.name!)
    expect(listed.length).toBeGreaterThanOrEqual(2)
    await v1.batches.delete({ name: slow.name! })
    expect(await failure(v1.batches.get({ name: slow.name! }))).toMatchObject({ status: 404 })
  })

  test("unknown and foreign IDs are 404 in Gemini's shape, naming the ID", async () => {
    const { v1beta } = clients()
    const job = await v1beta.batches.create({ model: 'mock-1', src: [{ contents: [{ role: 'user', parts: [{ text: 'x' }] }] }] })
    const stranger = await setup.gateway.createAccount('stranger-gemini', '10')
    const { createKey } = await import('../src/domain/keys.ts')
    const { secret } = await createKey(setup.gateway.gateway.services.store.keys, { accountId: stranger.id })
    const foreign = new GoogleGenAI({ apiKey: secret, httpOptions: { baseUrl: setup.gateway.url } })
    const id = job.name!.slice('batches/'.length)
    for (const call of [
      () => foreign.batches.get({ name: job.name! }),
      () => foreign.batches.cancel({ name: job.name! }),
      () => foreign.batches.delete({ name: job.name! }),
    ]) {
      const error = await failure(call())
      expect(error.status).toBe(404)
      expect(error.message).toContain(id)
    }
    const raw = await fetch(`${setup.gateway.url}/v1beta/batches/nope?key=${setup.gateway.key}`)
    expect(raw.status).toBe(404)
    expect(await raw.json()).toMatchObject({ error: { code: 404, status: 'NOT_FOUND', message: expect.stringContaining('nope') } })
  })
})
