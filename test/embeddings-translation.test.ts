import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import OpenAI from 'openai'
import { countTokens } from '../src/core/estimate.ts'
import { mockEmbedding } from '../src/operations/embeddings/providers/mock.ts'
import { embeddingsConfig, embeddingsCost, type EmbeddingsUpstreams, startEmbeddingsUpstreams } from './support/embeddings-upstreams.ts'
import { startTestGateway, type TestGateway } from './support/gateway.ts'

/**
 * Any embeddings client to any upstream kind: what is carried (dimensions ↔ outputDimensionality, base64 made by the
 * gateway), what a batch too large for one upstream call becomes (calls of what it takes, joined in order), and what
 * cannot be carried (a 400 naming the field and the upstream kind, nothing sent). A failed call costs nothing.
 */
let upstreams: EmbeddingsUpstreams
let gateway: TestGateway

beforeAll(async () => {
  upstreams = startEmbeddingsUpstreams()
  const config = embeddingsConfig(upstreams, {
    models: [{ id: 'embed-small-calls', kind: 'embedding', provider: 'oai-small', upstream_model: 'tei', price: { input: '0.0201' } }],
  })
  // A text-embeddings-inference-like server that takes 2 inputs a call.
  config.providers.push({
    name: 'oai-small',
    type: 'openai',
    base_url: `${upstreams.openai.url}/v1`,
    embedding_inputs_per_call: 2,
  } as never)
  gateway = await startTestGateway({ config })
})

afterAll(async () => {
  await gateway?.stop()
  await upstreams?.stop()
})

const vector = (text: string, dimensions?: number) => Array.from(mockEmbedding(text, dimensions))

async function post(path: string, body: unknown, headers: Record<string, string> = { authorization: `Bearer ${gateway.key}` }) {
  const response = await fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  })
  return { status: response.status, json: (await response.json()) as any }
}

const gemini = (model: string, method: string, body: unknown) =>
  post(`/v1beta/models/${model}:${method}`, body, { 'x-goog-api-key': gateway.key })
const texts = (count: number) => Array.from({ length: count }, (_, index) => `input number ${index}`)

describe('carried between protocols', () => {
  test('an OpenAI client to Gemini: dimensions become outputDimensionality, floats come back as base64 when asked', async () => {
    const client = new OpenAI({ baseURL: gateway.baseUrl, apiKey: gateway.key, maxRetries: 0 })
    const answer = await client.embeddings.create({ model: 'embed-gemini', input: ['north', 'south'], dimensions: 12, user: 'end-user-7' })
    expect(answer.data.map((item) => item.embedding)).toEqual([vector('north', 12), vector('south', 12)])
    const sent = upstreams.gemini.requests.at(-1)!
    expect(sent.path).toBe('/v1beta/models/gemini-embedding-001:batchEmbedContents')
    expect(sent.body.requests).toEqual([
      { model: 'models/gemini-embedding-001', content: { parts: [{ text: 'north' }] }, outputDimensionality: 12 },
      { model: 'models/gemini-embedding-001', content: { parts: [{ text: 'south' }] }, outputDimensionality: 12 },
    ])
    expect(sent.rawBody).not.toContain('end-user-7') // Gemini has no end-user field: not sent
  })

  test('a Gemini client to an OpenAI-compatible upstream: outputDimensionality becomes dimensions, vectors come back in order', async () => {
    upstreams.reverseOrder = true
    try {
      const { status, json } = await gemini('embed-openai', 'batchEmbedContents', {
        requests: ['alpha', 'beta', 'gamma'].map((text) => ({
          model: 'models/embed-openai',
          content: { parts: [{ text }] },
          outputDimensionality: 6,
          taskType: 'TASK_TYPE_UNSPECIFIED',
        })),
      })
      expect(status).toBe(200)
      expect(json.embeddings.map((embedding: { values: number[] }) => embedding.values)).toEqual([
        vector('alpha', 6),
        vector('beta', 6),
        vector('gamma', 6),
      ])
    } finally {
      upstreams.reverseOrder = false
    }
    expect(upstreams.openai.requests.at(-1)!.body).toEqual({
      model: 'text-embedding-3-small',
      input: ['alpha', 'beta', 'gamma'],
      encoding_format: 'float',
      dimensions: 6,
    })
    const single = await gemini('embed-openai', 'embedContent', { content: { parts: [{ text: 'solo' }] } })
    expect(single.json).toEqual({ embedding: { values: vector('solo') } })
  })

  test('the OpenAI-compatible passthrough keeps fields the gateway does not know', async () => {
    const { status } = await post('/v1/embeddings', {
      model: 'embed-openai',
      input: 'query text',
      input_type: 'query',
      encoding_format: 'float',
    })
    expect(status).toBe(200)
    expect(upstreams.openai.requests.at(-1)!.body).toEqual({
      model: 'text-embedding-3-small',
      input: 'query text',
      input_type: 'query',
      encoding_format: 'float',
    })
  })
})

describe('split into what the upstream takes per call', () => {
  test("250 inputs to Gemini (100 a call): three calls, one answer in the inputs' order, billed once", async () => {
    const before = await gateway.settled()
    const calls = upstreams.gemini.requests.length
    const { status, json } = await post('/v1/embeddings', { model: 'embed-gemini', input: texts(250), dimensions: 4 })
    expect(status).toBe(200)
    expect(
      upstreams.gemini.requests
        .slice(calls)
        .map((request) => request.body.requests.length)
        .sort((a, b) => b - a),
    ).toEqual([100, 100, 50])
    expect(json.data.map((item: { index: number }) => item.index)).toEqual(texts(250).map((_, index) => index))
    expect(json.data.map((item: { embedding: number[] }) => item.embedding)).toEqual(texts(250).map((text) => vector(text, 4)))
    const after = await gateway.settled()
    expect(before.balance - after.balance).toBe(embeddingsCost(json.usage.prompt_tokens))
  })

  test('a server that takes 2 a call (embedding_inputs_per_call): 5 inputs in 3 calls, the reported usage summed', async () => {
    const calls = upstreams.openai.requests.length
    const input = ['a', 'bb', 'ccc', 'dddd', 'eeeee']
    const { json } = await post('/v1/embeddings', { model: 'embed-small-calls', input })
    expect(upstreams.openai.requests.slice(calls).map((request) => request.body.input.length)).toEqual([2, 2, 1])
    expect(json.data.map((item: { embedding: number[] }) => item.embedding)).toEqual(input.map((text) => vector(text)))
    expect(json.usage).toEqual({ prompt_tokens: 15, total_tokens: 15 })
    await gateway.settled()
    const [row] = await gateway.gateway.services.store.usage.listRequests({ accountId: gateway.account.id }, 1)
    expect(row).toMatchObject({ model: 'embed-small-calls', inputTokens: 15, units: 5, cost: embeddingsCost(15), estimated: false })
  })
})

describe('what cannot be carried: a 400 naming the field and the upstream kind, nothing sent', () => {
  test('token ids toward Gemini', async () => {
    const sent = upstreams.gemini.requests.length
    const { status, json } = await post('/v1/embeddings', { model: 'embed-gemini', input: [[101, 202, 303]] })
    expect(status).toBe(400)
    expect(json.error).toMatchObject({ param: 'input', code: 'unsupported_by_upstream' })
    expect(json.error.message).toContain('(gemini) embeds text only, not token ids')
    expect(upstreams.gemini.requests.length).toBe(sent)
  })

  test('a task type or a title toward an OpenAI-compatible upstream', async () => {
    const sent = upstreams.openai.requests.length
    const taskType = await gemini('embed-openai', 'embedContent', { content: { parts: [{ text: 'q' }] }, taskType: 'RETRIEVAL_QUERY' })
    expect(taskType.status).toBe(400)
    expect(taskType.json.error.message).toContain("'taskType' cannot be sent to this model: its upstream (openai) has no task types")
    const title = await gemini('embed-openai', 'embedContent', {
      content: { parts: [{ text: 'd' }] },
      taskType: 'TASK_TYPE_UNSPECIFIED',
      title: 'Doc',
    })
    expect(title.json.error.message).toContain("'title' cannot be sent to this model: its upstream (openai)")
    expect(upstreams.openai.requests.length).toBe(sent)
  })

  test('token ids toward the mock and an OpenAI-compatible upstream are fine', async () => {
    const { json } = await post('/v1/embeddings', { model: 'embed-mock', input: [[1, 2, 3], [4]], encoding_format: 'float' })
    expect(json.data.map((item: { embedding: number[] }) => item.embedding)).toEqual([vector('tokens:1,2,3'), vector('tokens:4')])
    expect(json.usage.prompt_tokens).toBe(4)
  })
})

describe('bad input and failed calls', () => {
  test("what OpenAI and Gemini refuse is a 400 in the caller's shape, naming the field", async () => {
    expect((await post('/v1/embeddings', { model: 'embed-mock', input: '' })).json.error.param).toBe('input')
    expect((await post('/v1/embeddings', { model: 'embed-mock', input: ['ok', ''] })).json.error.param).toBe('input[1]')
    expect((await post('/v1/embeddings', { model: 'embed-mock', input: ['text', [1, 2]] })).json.error.param).toBe('input[1]')
    expect((await post('/v1/embeddings', { model: 'embed-mock', input: texts(2049) })).json.error.message).toContain('at most 2048 inputs')
    expect((await post('/v1/embeddings', { model: 'embed-mock', input: 'x', encoding_format: 'int8' })).json.error.param).toBe(
      'encoding_format',
    )
    const image = await gemini('embed-mock', 'embedContent', {
      content: { parts: [{ inlineData: { mimeType: 'image/png', data: 'AAAA' } }] },
    })
    expect(image.json.error).toMatchObject({
      code: 400,
      status: 'INVALID_ARGUMENT',
      message: "Invalid value for 'content.parts[0]': only text can be embedded through this gateway.",
    })
    const otherModel = await gemini('embed-mock', 'batchEmbedContents', {
      requests: [{ model: 'models/embed-openai', content: { parts: [{ text: 'x' }] } }],
    })
    expect(otherModel.json.error.message).toContain("'requests[0].model': 'models/embed-openai' is not models/embed-mock")
  })

  test('a client that leaves before its vectors arrive pays for its input, as a chat client pays for its prompt', async () => {
    upstreams.delayMs = 1500
    try {
      const input = ['left before the answer', 'came']
      const aborted = fetch(`${gateway.url}/v1/embeddings`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gateway.key}` },
        body: JSON.stringify({ model: 'embed-openai', input }),
        signal: AbortSignal.timeout(400),
      })
      await expect(aborted).rejects.toThrow()
      await Bun.sleep(300)
      await gateway.settled()
      const [row] = await gateway.gateway.services.store.usage.listRequests({ accountId: gateway.account.id }, 1)
      const tokens = (await countTokens(input[0]!)) + (await countTokens(input[1]!))
      expect(row).toMatchObject({
        operation: 'embeddings',
        status: 499,
        errorType: 'client_closed',
        inputTokens: tokens,
        units: 0,
        cost: embeddingsCost(tokens),
        estimated: true,
      })
    } finally {
      upstreams.delayMs = 0
    }
  })

  test('an upstream failing on every try costs nothing; a retry that succeeds is billed once', async () => {
    const before = await gateway.settled()
    upstreams.failNext.push(500, 500, 500)
    const failed = await post('/v1/embeddings', { model: 'embed-gemini', input: 'will fail' })
    expect(failed.status).toBe(502)
    const afterFailure = await gateway.settled()
    expect(afterFailure.balance).toBe(before.balance)
    upstreams.failNext.push(503)
    const retried = await post('/v1/embeddings', { model: 'embed-openai', input: 'second try', encoding_format: 'float' })
    expect(retried.status).toBe(200)
    const after = await gateway.settled()
    expect(afterFailure.balance - after.balance).toBe(embeddingsCost('second try'.length))
  })
})
