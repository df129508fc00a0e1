import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { connect } from 'node:net'
import Anthropic from '@anthropic-ai/sdk'
import { GoogleGenAI } from '@google/genai'
import OpenAI, { toFile } from 'openai'
import { jsonl, pollUntil, startBatchSetup, type BatchSetup } from './support/batches.ts'
import { failure } from './support/failure.ts'

/**
 * ISSUE 22: what one account may keep and do with batches. A $0 key with `rpm: 1` once uploaded 10 × 20 MiB and made
 * batches freely, a trickled upload ran 42 s past body_timeout_ms, and five Gemini batches with 20 MB of metadata
 * each made one listing answer 202 MB. Here, with the quotas lowered (`tasks.max_files_per_account: 3`,
 * `max_stored_bytes_per_account: 20000`, `max_open_batches_per_account: 1`) and body_timeout_ms at 1.5 s.
 */
let setup: BatchSetup

beforeAll(async () => {
  setup = await startBatchSetup({
    tasks: { max_files_per_account: 3, max_stored_bytes_per_account: 20_000, max_open_batches_per_account: 1 },
    limits: { body_timeout_ms: 1500 },
  })
})

afterAll(() => setup.stop())

/** A fresh account with money and a key (each test's quotas are its own), and the three SDKs on that key. */
async function freshTenant(limits: { rpm?: number; concurrency?: number } = {}) {
  const account = await setup.gateway.createAccount(`tenant-${crypto.randomUUID().slice(0, 8)}`, '10')
  const { secret } = await setup.gateway.createKey({ accountId: account.id, ...limits })
  return {
    secret,
    openai: new OpenAI({ baseURL: setup.gateway.baseUrl, apiKey: secret, maxRetries: 0 }),
    anthropic: new Anthropic({ baseURL: setup.gateway.url, apiKey: secret, maxRetries: 0 }),
    gemini: new GoogleGenAI({ apiKey: secret, httpOptions: { baseUrl: setup.gateway.url, apiVersion: 'v1beta' } }),
  }
}

const line = (customId: string, model = 'mock-1') => ({
  custom_id: customId,
  method: 'POST',
  url: '/v1/chat/completions',
  body: { model, max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] },
})
const upload = async (client: OpenAI, text: string) =>
  client.files.create({ file: await toFile(Buffer.from(text), 'in.jsonl'), purpose: 'batch' })

describe('per-account quotas', () => {
  test('files per account: the fourth upload is a 400 naming the quota; deleting one makes room', async () => {
    const { openai } = await freshTenant()
    const files = [
      await upload(openai, jsonl([line('a')])),
      await upload(openai, jsonl([line('b')])),
      await upload(openai, jsonl([line('c')])),
    ]
    const error = await failure(upload(openai, jsonl([line('d')])))
    expect(error).toMatchObject({ status: 400, code: 'file_quota_exceeded', param: 'file', type: 'invalid_request_error' })
    expect(error.message).toContain('3 files')
    await openai.files.delete(files[0]!.id)
    expect((await upload(openai, jsonl([line('d')]))).id).toStartWith('file-')
  })

  test('bytes stored per account: an upload that would pass the quota is refused and leaves nothing stored', async () => {
    const { openai } = await freshTenant()
    const big = jsonl(Array.from({ length: 80 }, (_, index) => line(`r${index}`))) // ~15 KB
    expect(Buffer.byteLength(big)).toBeGreaterThan(10_000)
    await upload(openai, big)
    const error = await failure(upload(openai, big))
    expect(error).toMatchObject({ status: 400, code: 'storage_quota_exceeded', param: 'file' })
    expect(error.message).toContain('20000 bytes')
    expect((await openai.files.list()).data.length).toBe(1)
  })

  test("open batches per account: a second batch while one runs is a 429 in each protocol's shape; once it ends there is room", async () => {
    const { openai, anthropic, gemini } = await freshTenant()
    const file = await upload(openai, jsonl(Array.from({ length: 4 }, (_, index) => line(`s${index}`, 'gpt-slow'))))
    const running = await openai.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' })
    const second = await failure(
      openai.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' }),
    )
    expect(second).toMatchObject({ status: 429, code: 'too_many_open_batches' })
    const viaAnthropic = await failure(
      anthropic.messages.batches.create({
        requests: [{ custom_id: 'a', params: { model: 'mock-1', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] } }],
      }),
    )
    expect(viaAnthropic).toMatchObject({ status: 429, error: { type: 'error', error: { type: 'rate_limit_error' } } })
    expect(viaAnthropic.message).toContain('1 batches not yet ended')
    const viaGemini = await failure(
      gemini.batches.create({ model: 'mock-1', src: [{ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }] }),
    )
    expect(viaGemini.status).toBe(429)
    expect(viaGemini.message).toContain('RESOURCE_EXHAUSTED')
    await openai.batches.cancel(running.id)
    await pollUntil(
      () => openai.batches.retrieve(running.id),
      (batch) => batch.status === 'cancelled',
    )
    const next = await anthropic.messages.batches.create({
      requests: [{ custom_id: 'a', params: { model: 'mock-1', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] } }],
    })
    expect(next.processing_status).toBe('in_progress')
  })
})

describe("the key's limits and the body deadline", () => {
  test('rpm: uploads and batch creation are requests like any other (429 with Retry-After)', async () => {
    const { openai, anthropic } = await freshTenant({ rpm: 1 })
    const file = await upload(openai, jsonl([line('a')]))
    const again = await failure(upload(openai, jsonl([line('b')])))
    expect(again).toMatchObject({ status: 429, code: 'rate_limit_exceeded' })
    expect(Number(again.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(again.headers.get('connection')).toBe('close')
    const batch = await failure(
      openai.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' }),
    )
    expect(batch).toMatchObject({ status: 429, code: 'rate_limit_exceeded' })
    const messages = await failure(
      anthropic.messages.batches.create({
        requests: [{ custom_id: 'a', params: { model: 'mock-1', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] } }],
      }),
    )
    expect(messages).toMatchObject({ status: 429, error: { error: { type: 'rate_limit_error' } } })
  })

  test("concurrency and the body deadline: an upload trickled in holds the key's one slot until body_timeout_ms cuts it (408)", async () => {
    const { openai, secret } = await freshTenant({ concurrency: 1 })
    const trickled = trickleUpload(secret)
    await Bun.sleep(300)
    const meanwhile = await failure(upload(openai, jsonl([line('x')])))
    expect(meanwhile).toMatchObject({ status: 429 })
    expect(meanwhile.message).toContain('1 concurrent request')
    const { status, body, ms } = await trickled
    expect(status).toBe(408)
    expect(JSON.parse(body).error.code).toBe('body_timeout')
    expect(ms).toBeGreaterThan(1400)
    expect(ms).toBeLessThan(3000)
    expect(await openai.files.list()).toMatchObject({ data: [] })
    // The slot is free again.
    expect((await upload(openai, jsonl([line('y')]))).id).toStartWith('file-')
  })
})

/** A multipart upload whose file arrives a few bytes every 100 ms, for up to 8 s: what the gateway answers, and when. */
function trickleUpload(secret: string): Promise<{ status: number; body: string; ms: number }> {
  const { hostname, port } = new URL(setup.gateway.url)
  const boundary = 'trickle'
  const head = `--${boundary}\r\ncontent-disposition: form-data; name="purpose"\r\n\r\nbatch\r\n--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="slow.jsonl"\r\n\r\n`
  const started = performance.now()
  return new Promise((resolve) => {
    let answer = ''
    const socket = connect(Number(port), hostname, () => {
      socket.write(
        `POST /v1/files HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${secret}\r\ncontent-type: multipart/form-data; boundary=${boundary}\r\ncontent-length: 100000\r\n\r\n${head}`,
      )
      const timer = setInterval(() => (socket.destroyed ? clearInterval(timer) : socket.write('{"a":1}\n')), 100)
      setTimeout(() => clearInterval(timer), 8000)
    })
    socket.on('data', (data) => (answer += data.toString()))
    const done = () =>
      resolve({
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0),
        body: answer.split('\r\n\r\n')[1] ?? '',
        ms: performance.now() - started,
      })
    socket.on('close', done)
    socket.on('error', () => {})
    setTimeout(() => socket.destroy(), 9000)
  })
}

describe('metadata and listings are bounded', () => {
  test("OpenAI's documented metadata limits: 16 pairs, keys up to 64 characters, string values up to 512", async () => {
    const { openai } = await freshTenant()
    const file = await upload(openai, jsonl([line('a')]))
    const create = (metadata: unknown) =>
      failure(
        openai.batches.create({
          input_file_id: file.id,
          endpoint: '/v1/chat/completions',
          completion_window: '24h',
          metadata: metadata as Record<string, string>,
        }),
      )
    const pairs = Object.fromEntries(Array.from({ length: 17 }, (_, index) => [`k${index}`, 'v']))
    expect(await create(pairs)).toMatchObject({ status: 400, code: 'metadata_too_large', param: 'metadata' })
    expect(await create({ ['k'.repeat(65)]: 'v' })).toMatchObject({ status: 400, code: 'metadata_too_large' })
    expect(await create({ note: 'v'.repeat(513) })).toMatchObject({ status: 400, code: 'metadata_too_large', param: 'metadata.note' })
    expect(await create({ note: { nested: 'x'.repeat(10_000) } })).toMatchObject({ status: 400, param: 'metadata.note' })
    const fine = await openai.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
      metadata: { ...Object.fromEntries(Array.from({ length: 15 }, (_, index) => [`k${index}`, 'v'])), note: 'v'.repeat(512) },
    })
    expect(fine.metadata!.note).toHaveLength(512)
  })

  test("Gemini: a request's metadata is at most 8 KiB and displayName 512 characters; a listing carries states, not every response", async () => {
    const { gemini, secret } = await freshTenant()
    const request = (metadata: unknown) => ({
      contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
      metadata: metadata as Record<string, string>,
    })
    const tooMuch = await failure(gemini.batches.create({ model: 'mock-1', src: [request({ note: 'x'.repeat(9000) })] }))
    expect(tooMuch.status).toBe(400)
    expect(tooMuch.message).toContain('requests[0].metadata')
    const longName = await failure(
      gemini.batches.create({ model: 'mock-1', src: [request({ note: 'x' })], config: { displayName: 'n'.repeat(513) } }),
    )
    expect(longName.status).toBe(400)
    expect(longName.message).toContain('displayName')
    // 400 requests with 7 KB of metadata each: one batch of ~2.8 MB that a listing used to repeat in full.
    const job = await gemini.batches.create({
      model: 'mock-1',
      src: Array.from({ length: 400 }, (_, index) => request({ index: String(index), note: 'x'.repeat(7000) })),
    })
    const done = await pollUntil(
      () => gemini.batches.get({ name: job.name! }),
      (value) => String(value.state) === 'JOB_STATE_SUCCEEDED',
      60_000,
    )
    const responses = done.dest!.inlinedResponses!
    expect(responses).toHaveLength(400)
    expect(responses.map((entry) => (entry.metadata as { index: string }).index)).toEqual(
      Array.from({ length: 400 }, (_, index) => String(index)),
    )
    const listing = await fetch(`${setup.gateway.url}/v1beta/batches?pageSize=1000`, { headers: { 'x-goog-api-key': secret } })
    const text = await listing.text()
    expect(listing.status).toBe(200)
    expect(text.length).toBeLessThan(10_000)
    const [operation] = (
      JSON.parse(text) as { operations: { name: string; done: boolean; metadata: { batchStats: Record<string, string> } }[] }
    ).operations
    expect(operation).toMatchObject({
      name: job.name,
      done: true,
      metadata: { batchStats: { requestCount: '400', successfulRequestCount: '400' } },
    })
  }, 90_000)
})
