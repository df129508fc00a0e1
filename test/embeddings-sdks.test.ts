import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { GoogleGenAI } from '@google/genai'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { OpenAIEmbeddings } from '@langchain/openai'
import { embed, embedMany } from 'ai'
import OpenAI from 'openai'
import { countTokens } from '../src/core/estimate.ts'
import { mockEmbedding } from '../src/operations/embeddings/providers/mock.ts'
import { embeddingsConfig, embeddingsCost, type EmbeddingsUpstreams, startEmbeddingsUpstreams } from './support/embeddings-upstreams.ts'
import { startTestGateway, type TestGateway } from './support/gateway.ts'

/**
 * Issue 26's clients, unmodified, against an embedding model on each upstream kind: the OpenAI SDK (base64 by
 * default, and floats), @google/genai (one content and several), Vercel AI SDK's embed/embedMany and LangChain's
 * OpenAIEmbeddings. Every vector is the one its text should get (the loopback servers and the mock answer with
 * `mockEmbedding`), and every call is billed exactly: the upstream's reported tokens, or — from Gemini, which
 * reports none — the gateway tokenizer's count, flagged estimated.
 */
let upstreams: EmbeddingsUpstreams
let gateway: TestGateway

beforeAll(async () => {
  upstreams = startEmbeddingsUpstreams()
  gateway = await startTestGateway({ config: embeddingsConfig(upstreams) })
})

afterAll(async () => {
  await gateway?.stop()
  await upstreams?.stop()
})

/**
 * How each route counts what it bills: the upstream's report (a token a character from the loopback, a token per four
 * from the mock), or the tokenizer's. `answeredAs`: the model an OpenAI client's answer names — the upstream's own
 * on the passthrough path (its bytes, as it wrote them), the gateway's model id when the answer is translated.
 */
const routes = [
  { model: 'embed-openai', tokensOf: async (text: string) => text.length, estimated: false, answeredAs: 'text-embedding-3-small' },
  { model: 'embed-gemini', tokensOf: (text: string) => countTokens(text), estimated: true, answeredAs: 'embed-gemini' },
  { model: 'embed-mock', tokensOf: async (text: string) => Math.ceil(text.length / 4), estimated: false, answeredAs: 'embed-mock' },
]

const expected = (text: string, dimensions?: number) => Array.from(mockEmbedding(text, dimensions))

/** Run one client call and check what the account paid for it and what its usage row says. */
async function billed(route: (typeof routes)[number], texts: string[], call: () => Promise<void>) {
  const before = await gateway.settled()
  await call()
  const after = await gateway.settled()
  let tokens = 0
  for (const text of texts) tokens += await route.tokensOf(text)
  expect(before.balance - after.balance).toBe(embeddingsCost(tokens))
  const [row] = await gateway.gateway.services.store.usage.listRequests({ accountId: gateway.account.id }, 1)
  expect(row).toMatchObject({
    operation: 'embeddings',
    model: route.model,
    status: 200,
    inputTokens: tokens,
    outputTokens: 0,
    units: texts.length,
    estimated: route.estimated,
    cost: embeddingsCost(tokens),
  })
}

describe.each(routes.map((route) => [route.model, route] as const))('%s', (_, route) => {
  test('openai embeddings.create: base64 by default (decoded by the SDK), and floats when asked', async () => {
    const client = new OpenAI({ baseURL: gateway.baseUrl, apiKey: gateway.key, maxRetries: 0 })
    const texts = ['The quick brown fox', 'jumps over the lazy dog', 'The quick brown fox']
    await billed(route, texts, async () => {
      const answer = await client.embeddings.create({ model: route.model, input: texts })
      expect(answer.data.map((item) => item.embedding)).toEqual(texts.map((text) => expected(text)))
      expect(answer.data.map((item) => item.index)).toEqual([0, 1, 2])
      expect(answer.model).toBe(route.answeredAs)
    })
    await billed(route, ['One more'], async () => {
      const answer = await client.embeddings.create({ model: route.model, input: 'One more', encoding_format: 'float', dimensions: 8 })
      expect(answer.data[0]!.embedding).toEqual(expected('One more', 8))
    })
  })

  test('@google/genai models.embedContent: one content, then several', async () => {
    const ai = new GoogleGenAI({ apiKey: gateway.key, httpOptions: { baseUrl: gateway.url } })
    await billed(route, ['What is a gateway?'], async () => {
      const answer = await ai.models.embedContent({ model: route.model, contents: 'What is a gateway?' })
      expect(answer.embeddings!.map((embedding) => embedding.values)).toEqual([expected('What is a gateway?')])
    })
    const texts = ['first document', 'second document']
    await billed(route, texts, async () => {
      const answer = await ai.models.embedContent({ model: route.model, contents: texts, config: { outputDimensionality: 16 } })
      expect(answer.embeddings!.map((embedding) => embedding.values)).toEqual(texts.map((text) => expected(text, 16)))
    })
  })

  test('Vercel AI SDK embed and embedMany (openai-compatible provider)', async () => {
    const provider = createOpenAICompatible({ name: 'tollgate', baseURL: gateway.baseUrl, apiKey: gateway.key })
    const model = provider.embeddingModel(route.model)
    await billed(route, ['sunny day at the beach'], async () => {
      const { embedding } = await embed({ model, value: 'sunny day at the beach', maxRetries: 0 })
      expect(embedding).toEqual(expected('sunny day at the beach'))
    })
    const values = ['rainy day', 'snowy night', 'windy morning']
    await billed(route, values, async () => {
      const { embeddings, usage } = await embedMany({ model, values, maxRetries: 0 })
      expect(embeddings).toEqual(values.map((value) => expected(value)))
      expect(usage.tokens).toBeGreaterThan(0)
    })
  })

  test('LangChain OpenAIEmbeddings: embedQuery and embedDocuments', async () => {
    const embeddings = new OpenAIEmbeddings({
      model: route.model,
      apiKey: gateway.key,
      configuration: { baseURL: gateway.baseUrl },
      maxRetries: 0,
    })
    await billed(route, ['where is the station'], async () => {
      expect(await embeddings.embedQuery('where is the station')).toEqual(expected('where is the station'))
    })
    const documents = ['The station is north.', 'Trains leave hourly.']
    await billed(route, documents, async () => {
      expect(await embeddings.embedDocuments(documents)).toEqual(documents.map((text) => expected(text)))
    })
  })
})
