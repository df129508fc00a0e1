import { Database } from 'bun:sqlite'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import Anthropic from '@anthropic-ai/sdk'
import { GoogleGenAI } from '@google/genai'
import OpenAI, { toFile } from 'openai'
import { jsonl, startBatchSetup, type BatchSetup } from './support/batches.ts'
import { failure } from './support/failure.ts'

/**
 * POST /v1/files parsed as a stream (core/multipart.ts), and the batch limits: a file over `tasks.max_file_bytes`
 * (lowered here to 10,000,000 bytes, from 200 MB) and a batch of more than 50,000 requests are 400s naming the limit,
 * refused before anything runs.
 */
const maxFileBytes = 10_000_000
const databasePath = join(mkdtempSync(join(tmpdir(), 'tollgate-upload-')), 'tollgate.db')
let setup: BatchSetup
let client: OpenAI

beforeAll(async () => {
  setup = await startBatchSetup({ tasks: { max_file_bytes: maxFileBytes }, databasePath })
  client = new OpenAI({ baseURL: setup.gateway.baseUrl, apiKey: setup.gateway.key, maxRetries: 0 })
})

afterAll(() => setup.stop())

const line = (customId: string, text = 'hi') => ({
  custom_id: customId,
  method: 'POST',
  url: '/v1/chat/completions',
  body: { model: 'mock-1', messages: [{ role: 'user', content: text }] },
})

/** POST /v1/files with a raw body, as a hand-written client would send it. */
function post(body: BodyInit, contentType?: string) {
  const headers: Record<string, string> = { authorization: `Bearer ${setup.gateway.key}` }
  if (contentType) headers['content-type'] = contentType
  return fetch(`${setup.gateway.baseUrl}/v1/files`.replace('/v1/v1', '/v1'), { method: 'POST', headers, body })
}

/** Parts stored by uploads (refused ones must leave none). */
async function storedParts(): Promise<number> {
  const database = new Database(databasePath, { readonly: true })
  try {
    return (database.query('SELECT count(*) AS n FROM task_file_parts').get() as { n: number }).n
  } finally {
    database.close()
  }
}

async function expectOpenAiError(response: Response, param: string | null, message: string | RegExp) {
  expect(response.status).toBe(400)
  const body = (await response.json()) as any
  expect(body.error).toMatchObject({ type: 'invalid_request_error', param })
  expect(body.error.message).toMatch(message)
}

describe('file uploads', () => {
  test("the SDK's files.create: a file of several MB (lines across 1 MB parts, a line longer than one, delimiter-like lines) reads back byte for byte", async () => {
    const lines = Array.from({ length: 30_000 }, (_, index) => line(`r${index}`, `--${'x'.repeat(index % 200)}\r\n--`))
    lines.push(line('long', 'L'.repeat(2_500_000))) // one line longer than a stored part
    const text = jsonl(lines)
    const file = await client.files.create({ file: await toFile(Buffer.from(text), 'big.jsonl'), purpose: 'batch' })
    expect(file).toMatchObject({ object: 'file', purpose: 'batch', filename: 'big.jsonl', bytes: Buffer.byteLength(text) })
    expect(await (await client.files.content(file.id)).text()).toBe(text)
  })

  test('a raw fetch of a FormData: purpose first, expires_after, the file last', async () => {
    const form = new FormData()
    form.append('purpose', 'batch')
    form.append('expires_after[anchor]', 'created_at')
    form.append('expires_after[seconds]', '7200')
    form.append('file', new File([jsonl([line('a')])], 'form.jsonl'))
    const response = await post(form)
    expect(response.status).toBe(200)
    const file = (await response.json()) as any
    expect(file).toMatchObject({ object: 'file', filename: 'form.jsonl', purpose: 'batch' })
    expect(file.expires_at - file.created_at).toBe(7200)
    expect(await (await client.files.content(file.id)).text()).toBe(jsonl([line('a')]))
  })

  test("malformed multipart is a 400 in OpenAI's shape, and leaves nothing stored", async () => {
    const partsBefore = await storedParts()
    const filesBefore = (await client.files.list()).data.length
    await expectOpenAiError(await post('{"purpose":"batch"}', 'application/json'), null, /multipart\/form-data body with a boundary/)
    await expectOpenAiError(await post('--b\r\n', 'multipart/form-data'), null, /boundary/)
    const head =
      '--b\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nbatch\r\n--b\r\nContent-Disposition: form-data; name="file"; filename="t.jsonl"\r\n\r\n'
    await expectOpenAiError(
      await post(`${head}${jsonl([line('a')])}`, 'multipart/form-data; boundary=b'),
      null,
      /ended before its closing boundary/,
    )
    await expectOpenAiError(
      await post(
        `--b\r\nContent-Disposition: form-data; name="file"\r\nX-Pad: ${'p'.repeat(20_000)}\r\n\r\nx\r\n--b--`,
        'multipart/form-data; boundary=b',
      ),
      null,
      /headers are longer than 16384 bytes/,
    )
    const onlyPurpose = new FormData()
    onlyPurpose.append('purpose', 'batch')
    await expectOpenAiError(await post(onlyPurpose), 'file', "Missing required parameter: 'file'")
    // The wrong purpose after the file: the file was stored as it came, then removed.
    const wrongPurpose = new FormData()
    wrongPurpose.append('file', new File([jsonl([line('a')])], 'w.jsonl'))
    wrongPurpose.append('purpose', 'fine-tune')
    await expectOpenAiError(await post(wrongPurpose), 'purpose', "purpose 'batch' only, not 'fine-tune'")
    const sdkWrong = await failure(
      client.files.create({ file: await toFile(Buffer.from(jsonl([line('a')])), 'w.jsonl'), purpose: 'assistants' }),
    )
    expect(sdkWrong).toMatchObject({ status: 400, param: 'purpose', type: 'invalid_request_error' })
    expect((await client.files.list()).data.length).toBe(filesBefore)
    expect(await storedParts()).toBe(partsBefore)
  })

  test(`a file over tasks.max_file_bytes is a 400 naming the limit, and leaves nothing stored`, async () => {
    const partsBefore = await storedParts()
    const row = JSON.stringify(line('r', 'y'.repeat(900))) + '\n'
    const text = row.repeat(Math.ceil((maxFileBytes + 1) / row.length)).slice(0, maxFileBytes + 1)
    const error = await failure(client.files.create({ file: await toFile(Buffer.from(text), 'huge.jsonl'), purpose: 'batch' }))
    expect(error).toMatchObject({ status: 400, param: 'file', code: 'file_too_large', type: 'invalid_request_error' })
    expect(error.message).toContain('9.5 MB limit (10000000 bytes)')
    expect(await storedParts()).toBe(partsBefore)
    // At the limit exactly it is taken.
    const exact = await client.files.create({
      file: await toFile(Buffer.from(text.slice(0, maxFileBytes)), 'exact.jsonl'),
      purpose: 'batch',
    })
    expect(exact.bytes).toBe(maxFileBytes)
    await client.files.delete(exact.id)
    // A body declared far larger is refused from its headers.
    const declared = await post(new Blob([text, text]), 'multipart/form-data; boundary=b')
    await expectOpenAiError(declared, 'file', '9.5 MB limit')
  }, 30_000)
})

describe('at most 50,000 requests a batch, in every protocol', () => {
  const tooMany = 50_001

  test('OpenAI: a 50,001-line file is a 400 naming the limit and the line; no batch is made, nothing billed', async () => {
    const before = await setup.gateway.settled()
    const row = JSON.stringify(line('x')).slice(0, -1)
    const text = Array.from({ length: tooMany }, (_, index) => `${row.replace('"x"', `"r${index}"`)}}`).join('\n') + '\n'
    expect(Buffer.byteLength(text)).toBeLessThan(maxFileBytes)
    const file = await client.files.create({ file: await toFile(Buffer.from(text), 'many.jsonl'), purpose: 'batch' })
    const batchesBefore = (await client.batches.list()).data.length
    const error = await failure(
      client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' }),
    )
    expect(error).toMatchObject({ status: 400, type: 'invalid_request_error' })
    expect(error.message).toContain('line 50001: a batch holds at most 50000 requests')
    expect((await client.batches.list()).data.length).toBe(batchesBefore)
    expect((await setup.gateway.settled()).balance).toBe(before.balance)
  }, 30_000)

  test('Anthropic and Gemini: 50,001 requests in the body are a 400 naming the limit; no batch is made', async () => {
    const anthropic = new Anthropic({ baseURL: setup.gateway.url, apiKey: setup.gateway.key, maxRetries: 0 })
    const requests = Array.from({ length: tooMany }, (_, index) => ({
      custom_id: `r${index}`,
      params: { model: 'mock-1', max_tokens: 8, messages: [{ role: 'user' as const, content: 'hi' }] },
    }))
    const error = await failure(anthropic.messages.batches.create({ requests }))
    expect(error).toMatchObject({ status: 400, error: { type: 'error', error: { type: 'invalid_request_error' } } })
    expect(error.message).toContain('at most 50000 requests')
    expect((await anthropic.messages.batches.list()).data.length).toBe(0)

    const ai = new GoogleGenAI({ apiKey: setup.gateway.key, httpOptions: { baseUrl: setup.gateway.url, apiVersion: 'v1beta' } })
    const src = Array.from({ length: tooMany }, () => ({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }))
    const geminiError = await failure(ai.batches.create({ model: 'gemini-up', src }))
    expect(geminiError.status).toBe(400)
    expect(geminiError.message).toContain('at most 50000 requests')
    expect((await ai.batches.list()).page.length).toBe(0)
    const { store } = setup.gateway.gateway.services
    expect((await store.tasks.listTasks(setup.gateway.account.id, { limit: 100 })).filter((task) => task.kind !== 'openai').length).toBe(0)
  }, 30_000)
})
