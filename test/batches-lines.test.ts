import { Database } from 'bun:sqlite'
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Anthropic from '@anthropic-ai/sdk'
import OpenAI, { toFile } from 'openai'
import { jsonl, startBatchSetup, type BatchSetup } from './support/batches.ts'
import { failure } from './support/failure.ts'

/**
 * ISSUE 22: a batch's requests get the checks a live request gets. 5,000-deep JSON in an input file's `tools` was
 * accepted and forwarded, 40,000-deep gave a 500, and a single 60 MB line was accepted: now each is a 400 naming the
 * line (limits.json_depth, 128 here; a line no longer than a live body, 32 MiB). Anthropic and Gemini take their
 * requests in the body, which is checked whole, as a live one is.
 */
const databasePath = join(mkdtempSync(join(tmpdir(), 'tollgate-lines-')), 'tollgate.db')
let setup: BatchSetup
let openai: OpenAI

beforeAll(async () => {
  setup = await startBatchSetup({ databasePath })
  openai = new OpenAI({ baseURL: setup.gateway.baseUrl, apiKey: setup.gateway.key, maxRetries: 0 })
})

afterAll(() => setup.stop())

const line = (customId: string) => ({
  custom_id: customId,
  method: 'POST',
  url: '/v1/chat/completions',
  body: { model: 'mock-1', messages: [{ role: 'user', content: 'hi' }] },
})
/** A chat line whose one tool's parameters nest `depth` arrays deep, written as text (no serializer would). */
const deepLine = (customId: string, depth: number) =>
  `{"custom_id":"${customId}","method":"POST","url":"/v1/chat/completions","body":{"model":"mock-1","messages":[{"role":"user","content":"hi"}],` +
  `"tools":[{"type":"function","function":{"name":"deep","parameters":{"type":"object","deep":${'['.repeat(depth)}${']'.repeat(depth)}}}}]}}`

async function createFrom(text: string) {
  const file = await openai.files.create({ file: await toFile(Buffer.from(text), 'in.jsonl'), purpose: 'batch' })
  return failure(openai.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' }))
}

const storedParts = () => {
  const database = new Database(databasePath, { readonly: true })
  try {
    return (database.query('SELECT count(*) AS n FROM task_file_parts').get() as { n: number }).n
  } finally {
    database.close()
  }
}

test('OpenAI input file: a line nested 5,000 or 40,000 deep is a 400 naming the line, never forwarded, never a 500', async () => {
  const batchesBefore = (await openai.batches.list()).data.length
  for (const depth of [5_000, 40_000]) {
    const error = await createFrom(jsonl([line('a')]) + deepLine('b', depth) + '\n')
    expect(error).toMatchObject({ status: 400, code: 'json_too_deep', param: 'line 2', type: 'invalid_request_error' })
    expect(error.message).toContain('line 2: the request is nested too deeply')
    expect(error.message).toContain('128 levels')
  }
  expect((await openai.batches.list()).data.length).toBe(batchesBefore)
  expect(setup.upstreams.openai.requests.length).toBe(0)
})

test('a single 60 MB line is refused as it is uploaded (400 naming it), and nothing of it is stored', async () => {
  const partsBefore = storedParts()
  const huge = `${JSON.stringify(line('a'))}\n{"custom_id":"b","pad":"${'x'.repeat(60 * 1024 * 1024)}"}\n`
  const error = await failure(openai.files.create({ file: await toFile(Buffer.from(huge), 'huge.jsonl'), purpose: 'batch' }))
  expect(error).toMatchObject({ status: 400, code: 'line_too_long', param: 'line 2' })
  expect(error.message).toContain('Line 2 of the file is longer than 32 MB')
  expect(storedParts()).toBe(partsBefore)
  // At the limit the line is taken (and its batch then checked like any other).
  const exact = JSON.stringify(line('c')).slice(0, -1)
  const padded = `${exact},"pad":"${'y'.repeat(32 * 1024 * 1024 - Buffer.byteLength(exact) - 10)}"}`
  expect(Buffer.byteLength(padded)).toBe(32 * 1024 * 1024)
  const taken = await openai.files.create({ file: await toFile(Buffer.from(padded + '\n'), 'exact.jsonl'), purpose: 'batch' })
  expect(taken.bytes).toBe(32 * 1024 * 1024 + 1)
  await openai.files.delete(taken.id)
}, 60_000)

test("Anthropic and Gemini: a request nested 5,000 deep is a 400 for the whole batch, in each one's shape", async () => {
  const anthropic = new Anthropic({ baseURL: setup.gateway.url, apiKey: setup.gateway.key, maxRetries: 0 })
  const deep = `${'['.repeat(5_000)}${']'.repeat(5_000)}`
  const messages = await fetch(`${setup.gateway.url}/v1/messages/batches`, {
    method: 'POST',
    headers: { 'x-api-key': setup.gateway.key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
    body: `{"requests":[{"custom_id":"a","params":{"model":"mock-1","max_tokens":8,"messages":[{"role":"user","content":"hi"}],"tools":[{"name":"deep","input_schema":{"type":"object","deep":${deep}}}]}}]}`,
  })
  expect(messages.status).toBe(400)
  expect(await messages.json()).toMatchObject({
    type: 'error',
    error: { type: 'invalid_request_error', message: expect.stringContaining('nested too deeply') },
  })
  const gemini = await fetch(`${setup.gateway.url}/v1beta/models/mock-1:batchGenerateContent`, {
    method: 'POST',
    headers: { 'x-goog-api-key': setup.gateway.key, 'content-type': 'application/json' },
    body: `{"batch":{"inputConfig":{"requests":{"requests":[{"request":{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"tools":[{"functionDeclarations":[{"name":"deep","parameters":{"type":"object","deep":${deep}}}]}]}}]}}}}`,
  })
  expect(gemini.status).toBe(400)
  expect(await gemini.json()).toMatchObject({
    error: { code: 400, status: 'INVALID_ARGUMENT', message: expect.stringContaining('nested too deeply') },
  })
  expect((await anthropic.messages.batches.list()).data).toEqual([])
})
