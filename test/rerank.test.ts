import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseConfig } from '../src/config/load.ts'
import { estimateTokens } from '../src/core/estimate.ts'
import { silentLogger } from '../src/core/logger.ts'
import { parseUsd } from '../src/core/money.ts'
import { ceilPerMillion } from '../src/core/pricing.ts'
import { startGateway } from '../src/gateway.ts'
import { mockRerankTokens } from '../src/operations/rerank/providers/mock.ts'
import { loopbackRerankTokens, rerankConfig, type RerankUpstream, startRerankUpstream } from './support/rerank-upstream.ts'
import { startTestGateway, type TestGateway } from './support/gateway.ts'

/**
 * Issue 29's rerank: `POST /v1/rerank` in the shape Cohere, Jina and vLLM share, against a vLLM-shaped loopback
 * server and the mock, priced per token (as the upstream reports them) or per search unit. Results come best
 * first, cut to top_n, with their documents when asked; every call is billed exactly; bad input is a 400 that costs
 * nothing; failures cost nothing; keys, limits, holds, the model list and the config apply.
 */
let upstream: RerankUpstream
let gateway: TestGateway

beforeAll(async () => {
  upstream = startRerankUpstream()
  gateway = await startTestGateway({
    config: { ...rerankConfig(upstream), routing: { min_requests: 1000, backoff_ms: 0 } },
    balanceUsd: '10',
  })
})

afterAll(async () => {
  await gateway?.stop()
  await upstream?.stop()
})

afterEach(() => {
  upstream.failNext.length = 0
  upstream.noUsage = false
})

interface Ranked {
  results: { index: number; relevance_score: number; document?: { text: string } }[]
  usage: { total_tokens: number }
  meta: { billed_units: { search_units: number } }
}

async function rerank(body: Record<string, unknown>, key = gateway.key): Promise<{ status: number; json: any }> {
  const response = await fetch(`${gateway.baseUrl}/rerank`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return { status: response.status, json: await response.json() }
}

const query = 'capital of France'
const documents = ['Berlin is the capital of Germany.', 'Paris is the capital of France.', 'Horses and cows are animals.']
const perToken = (tokens: number) => ceilPerMillion([tokens, parseUsd('0.0201')])

/** One call; the account paid exactly `cost`, and its row says rerank, its search units and its tokens. */
async function billed(cost: number, row: Record<string, unknown>, call: () => Promise<void>) {
  const before = await gateway.settled()
  await call()
  const after = await gateway.settled()
  expect(before.balance - after.balance).toBe(cost)
  const [usage] = await gateway.gateway.services.store.usage.listRequests({ accountId: gateway.account.id }, 1)
  expect(usage).toMatchObject({ operation: 'rerank', status: 200, cost, ...row })
}

describe.each([
  ['rerank-vllm', loopbackRerankTokens(query, documents)],
  ['rerank-mock', mockRerankTokens(query, documents)],
])('%s, priced per token', (model, tokens) => {
  test('best first, cut to top_n, with documents by default; billed for the tokens reported', async () => {
    await billed(perToken(tokens), { model, inputTokens: tokens, units: 1, estimated: false }, async () => {
      const { status, json } = await rerank({ model, query, documents, top_n: 2 })
      expect(status).toBe(200)
      const ranked = json as Ranked
      expect(ranked.results.map((result) => result.index)).toEqual([1, 0])
      expect(ranked.results[0]!.document).toEqual({ text: documents[1]! })
      expect(ranked.results[0]!.relevance_score).toBe(1)
      expect(ranked.usage.total_tokens).toBe(tokens)
      expect(ranked.meta.billed_units.search_units).toBe(1)
    })
  })

  test('return_documents: false leaves them out; documents may be objects with text (Cohere v1, Jina)', async () => {
    const { json } = await rerank({ model, query, documents: documents.map((text) => ({ text })), return_documents: false })
    expect((json as Ranked).results.map((result) => [result.index, result.document])).toEqual([
      [1, undefined],
      [0, undefined],
      [2, undefined],
    ])
  })
})

describe('priced per search unit', () => {
  test('a query with up to 100 documents is one unit; 101 are two', async () => {
    for (const model of ['rerank-units', 'rerank-mock-units']) {
      await billed(parseUsd('0.002'), { model, units: 1 }, async () => {
        expect((await rerank({ model, query, documents })).status).toBe(200)
      })
      const many = Array.from({ length: 101 }, (_, index) => `document ${index}`)
      await billed(2 * parseUsd('0.002'), { model, units: 2 }, async () => {
        expect(((await rerank({ model, query: 'document 7', documents: many, top_n: 1 })).json as Ranked).results[0]!.index).toBe(7)
      })
    }
  })
})

test("an upstream that reports no tokens is billed at the tokenizer's count of every pair, marked estimated", async () => {
  upstream.noUsage = true
  let tokens = 0
  for (const document of documents) tokens += (await estimateTokens(query)) + (await estimateTokens(document))
  await billed(perToken(tokens), { model: 'rerank-vllm', inputTokens: tokens, estimated: true }, async () => {
    expect((await rerank({ model: 'rerank-vllm', query, documents })).status).toBe(200)
  })
})

test("text-embeddings-inference (rerank_api: tei): its own body at /rerank, its list cut to top_n here, billed at the tokenizer's count", async () => {
  const sent = upstream.server.requests.length
  let tokens = 0
  for (const document of documents) tokens += (await estimateTokens(query)) + (await estimateTokens(document))
  await billed(perToken(tokens), { model: 'rerank-tei', inputTokens: tokens, units: 1, estimated: true }, async () => {
    const { status, json } = await rerank({ model: 'rerank-tei', query, documents, top_n: 2 })
    expect(status).toBe(200)
    expect((json as Ranked).results.map((result) => [result.index, result.document?.text])).toEqual([
      [1, documents[1]],
      [0, documents[0]],
    ])
  })
  const received = upstream.server.requests[sent]!
  expect(received.path).toBe('/rerank')
  expect(received.body).toEqual({ query, texts: documents, raw_scores: false, return_text: false })
})

test('the upstream gets the vLLM body at /v1/rerank, with its own model id', async () => {
  const sent = upstream.server.requests.length
  await rerank({ model: 'rerank-vllm', query, documents, top_n: 1 })
  const received = upstream.server.requests[sent]!
  expect(received.path).toBe('/v1/rerank')
  expect(received.body).toEqual({ model: 'BAAI/bge-reranker-v2-m3', query, documents, top_n: 1 })
  expect(received.headers.authorization).toBe('Bearer sk-upstream')
})

describe('refusals and failures cost nothing', () => {
  async function refused(body: Record<string, unknown>, status: number, message: string, key?: string) {
    const before = await gateway.settled()
    const sent = upstream.server.requests.length
    const answer = await rerank(body, key)
    expect(answer.status).toBe(status)
    expect(answer.json.error.message).toContain(message)
    expect((await gateway.settled()).balance).toBe(before.balance)
    if (status < 500) expect(upstream.server.requests.length).toBe(sent)
    const [row] = await gateway.gateway.services.store.usage.listRequests({ accountId: gateway.account.id }, 1)
    expect(row).toMatchObject({ operation: 'rerank', status, cost: 0 })
  }

  test("bad input: a 400 in OpenAI's shape naming the field", async () => {
    await refused({ model: 'rerank-vllm', documents }, 400, "Missing required parameter: 'query'.")
    await refused({ model: 'rerank-vllm', query, documents: [] }, 400, "'documents': it must hold at least one document")
    await refused({ model: 'rerank-vllm', query, documents: [1] }, 400, "Invalid value for 'documents[0]'")
    await refused({ model: 'rerank-vllm', query, documents, top_n: 0 }, 400, "Invalid value for 'top_n'")
    await refused(
      { model: 'mock-1', query, documents },
      400,
      "The model 'mock-1' is a chat model (kind: chat): it cannot serve rerank requests.",
    )
  })

  test('an upstream failing every attempt: a 5xx that costs nothing', async () => {
    upstream.failNext.push(500, 500, 500)
    await refused({ model: 'rerank-vllm', query, documents }, 502, 'failing on purpose')
  })

  test('a key without the model: 403; the hold: a balance short of it is refused before anything is sent', async () => {
    const { secret } = await gateway.createKey({ models: ['rerank-mock'] })
    await refused({ model: 'rerank-vllm', query, documents }, 403, "not permitted to use the model 'rerank-vllm'", secret)
    const listed = (await (await fetch(`${gateway.baseUrl}/models`, { headers: { authorization: `Bearer ${secret}` } })).json()) as {
      data: { id: string; type: string }[]
    }
    expect(listed.data.map((model) => [model.id, model.type])).toEqual([['rerank-mock', 'rerank']])
    const account = await gateway.createAccount('poor', '0.001')
    const poor = await gateway.createKey({ accountId: account.id })
    const many = Array.from({ length: 150 }, (_, index) => `document ${index}`)
    const answer = await rerank({ model: 'rerank-units', query, documents: many }, poor.secret) // 2 units at 0.002
    expect(answer.status).toBe(403)
    expect(answer.json.error.code).toBe('insufficient_balance')
  })
})

describe('the config', () => {
  const config = (model: Record<string, unknown>) => ({ providers: [{ name: 'mock', type: 'mock' }], models: [model] })

  test('a rerank model is priced per search unit or per token, not both and not neither', () => {
    expect(() => parseConfig(config({ id: 'r', kind: 'rerank', provider: 'mock', price: {} }))).toThrow(
      'models[0].price.search_unit: is required',
    )
    expect(() => parseConfig(config({ id: 'r', kind: 'rerank', provider: 'mock', price: { input: 1, search_unit: 1 } }))).toThrow(
      'not both',
    )
    expect(() => parseConfig(config({ id: 'r', kind: 'rerank', provider: 'mock', price: { input: 1, output: 1 } }))).toThrow(
      'models[0].price.output: a model of kind rerank has no such price',
    )
    expect(parseConfig(config({ id: 'r', kind: 'rerank', provider: 'mock', price: { search_unit: '0.002' } })).models[0]).toMatchObject({
      kind: 'rerank',
      price: { searchUnit: 2_000_000 },
    })
  })

  test('a rerank model on a Gemini provider is refused at start', async () => {
    const document = {
      listen: { host: '127.0.0.1', port: 0 },
      database: `sqlite:${join(mkdtempSync(join(tmpdir(), 'tollgate-rerank-')), 'never.db')}`,
      providers: [{ name: 'google', type: 'gemini', api_key: 'k' }],
      models: [{ id: 'g-rerank', kind: 'rerank', provider: 'google', price: { search_unit: 1 } }],
    }
    await expect(startGateway(parseConfig(document), silentLogger)).rejects.toThrow('which serves no rerank')
  })
})
