import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import Anthropic from '@anthropic-ai/sdk'
import { GoogleGenAI } from '@google/genai'
import OpenAI from 'openai'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseConfig } from '../src/config/load.ts'
import { silentLogger } from '../src/core/logger.ts'
import { startGateway } from '../src/gateway.ts'
import { embeddingsConfig, type EmbeddingsUpstreams, startEmbeddingsUpstreams } from './support/embeddings-upstreams.ts'
import { startTestGateway, type TestGateway } from './support/gateway.ts'

/**
 * What governs chat governs embeddings: the key's model list and limits, and a model serves only its own kind of
 * call — a chat model refuses an embeddings request and an embedding model a chat one, with a 400 in the caller's
 * protocol naming the model and what it serves. A config that routes an embedding model to Anthropic never starts.
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

const openAi = (key = gateway.key) => new OpenAI({ baseURL: gateway.baseUrl, apiKey: key, maxRetries: 0 })
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error) => error as { status: number; message: string; code?: string },
  )

describe('a model serves its own kind of call', () => {
  test('an embedding model refuses chat in every chat protocol: 400 naming the model and what it serves', async () => {
    const chat = await failure(openAi().chat.completions.create({ model: 'embed-openai', messages: [{ role: 'user', content: 'hi' }] }))
    expect(chat).toMatchObject({ status: 400, code: 'wrong_model_kind' })
    expect(chat!.message).toContain("The model 'embed-openai' is an embedding model (kind: embedding): it cannot serve chat requests.")
    const anthropic = new Anthropic({ baseURL: gateway.url, apiKey: gateway.key, maxRetries: 0 })
    const messages = await failure(
      anthropic.messages.create({ model: 'embed-mock', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
    )
    expect(messages).toMatchObject({ status: 400 })
    expect(messages!.message).toContain("'embed-mock' is an embedding model")
    const ai = new GoogleGenAI({ apiKey: gateway.key, httpOptions: { baseUrl: gateway.url } })
    const generate = await failure(ai.models.generateContent({ model: 'embed-gemini', contents: 'hi' }))
    expect(generate).toMatchObject({ status: 400 })
    expect(generate!.message).toContain('it cannot serve chat requests')
    expect(upstreams.openai.requests.length + upstreams.gemini.requests.length).toBe(0)
  })

  test('a chat model refuses embeddings, from OpenAI and Gemini clients alike', async () => {
    const embeddings = await failure(openAi().embeddings.create({ model: 'mock-1', input: 'hi' }))
    expect(embeddings).toMatchObject({ status: 400, code: 'wrong_model_kind' })
    expect(embeddings!.message).toContain("The model 'mock-1' is a chat model (kind: chat): it cannot serve embeddings requests.")
    const ai = new GoogleGenAI({ apiKey: gateway.key, httpOptions: { baseUrl: gateway.url } })
    const embedContent = await failure(ai.models.embedContent({ model: 'mock-1', contents: 'hi' }))
    expect(embedContent).toMatchObject({ status: 400 })
    expect(embedContent!.message).toContain('it cannot serve embeddings requests')
  })

  test('refusals are recorded as embeddings rows that cost nothing', async () => {
    await gateway.settled()
    const rows = await gateway.gateway.services.store.usage.listRequests({ accountId: gateway.account.id, model: 'mock-1' }, 10)
    expect(
      rows.some((row) => row.operation === 'embeddings' && row.status === 400 && row.errorType === 'wrong_model_kind' && row.cost === 0),
    ).toBe(true)
  })
})

describe("the key's model list and limits", () => {
  test('a key without the embedding model gets 403, and does not see it listed', async () => {
    const { secret } = await gateway.createKey({ models: ['mock-1', 'embed-mock'] })
    expect(await failure(openAi(secret).embeddings.create({ model: 'embed-openai', input: 'hi' }))).toMatchObject({
      status: 403,
      code: 'model_not_permitted',
    })
    expect((await openAi(secret).embeddings.create({ model: 'embed-mock', input: 'hi' })).data).toHaveLength(1)
    const listed = (await (await fetch(`${gateway.baseUrl}/models`, { headers: { authorization: `Bearer ${secret}` } })).json()) as {
      data: { id: string; type: string }[]
    }
    expect(listed.data.map((model) => [model.id, model.type])).toEqual([
      ['mock-1', 'chat'],
      ['embed-mock', 'embedding'],
    ])
  })

  test('rpm counts embeddings like any request', async () => {
    const { secret } = await gateway.createKey({ rpm: 2 })
    for (let index = 0; index < 2; index++) await openAi(secret).embeddings.create({ model: 'embed-mock', input: `call ${index}` })
    expect(await failure(openAi(secret).embeddings.create({ model: 'embed-mock', input: 'one too many' }))).toMatchObject({ status: 429 })
  })

  test('tpm counts the input tokens an embeddings request was billed for', async () => {
    // 30 tokens each as the OpenAI-kind loopback reports them, ~8 estimated at admission: 30 + 30 + 8 passes 65.
    const { secret } = await gateway.createKey({ tpm: 65 })
    const text = 'x'.repeat(30)
    await openAi(secret).embeddings.create({ model: 'embed-openai', input: text })
    await openAi(secret).embeddings.create({ model: 'embed-openai', input: text })
    const refused = await failure(openAi(secret).embeddings.create({ model: 'embed-openai', input: text }))
    expect(refused).toMatchObject({ status: 429, code: 'rate_limit_exceeded' })
  })

  test('the hold covers the body: a balance too small for it is refused before anything is sent', async () => {
    const account = await gateway.createAccount('almost-empty', '0.000001') // 1,000 nano-dollars: 49 tokens at 20.1
    const { secret } = await gateway.createKey({ accountId: account.id })
    const sent = upstreams.openai.requests.length
    const refused = await failure(openAi(secret).embeddings.create({ model: 'embed-openai', input: 'y'.repeat(200) }))
    expect(refused).toMatchObject({ status: 403, code: 'insufficient_balance' })
    expect(upstreams.openai.requests.length).toBe(sent)
  })
})

describe('/v1/models tells the kinds apart, as each vendor does', () => {
  const get = async (path: string, headers: Record<string, string>) =>
    (await fetch(`${gateway.url}${path}`, { headers })).json() as Promise<any>

  test('OpenAI: a type of chat or embedding; Gemini: the methods each model takes; Anthropic: the models Messages can call', async () => {
    const openAiList = await get('/v1/models', { authorization: `Bearer ${gateway.key}` })
    expect(openAiList.data.map((model: { id: string; type: string }) => `${model.id}:${model.type}`)).toEqual([
      'mock-1:chat',
      'embed-mock:embedding',
      'embed-openai:embedding',
      'embed-gemini:embedding',
    ])
    const ai = new GoogleGenAI({ apiKey: gateway.key, httpOptions: { baseUrl: gateway.url } })
    const methods = new Map<string, string[]>()
    for await (const model of await ai.models.list()) methods.set(model.name!, model.supportedActions!)
    expect(methods.get('models/embed-gemini')).toEqual(['embedContent', 'batchEmbedContents'])
    expect(methods.get('models/mock-1')).toEqual(['generateContent', 'streamGenerateContent', 'countTokens'])
    const one = await get('/v1beta/models/embed-openai', { 'x-goog-api-key': gateway.key })
    expect(one).toMatchObject({
      name: 'models/embed-openai',
      supportedGenerationMethods: ['embedContent', 'batchEmbedContents'],
      outputTokenLimit: 1,
    })
    const anthropic = new Anthropic({ baseURL: gateway.url, apiKey: gateway.key, maxRetries: 0 })
    expect((await anthropic.models.list()).data.map((model) => model.id)).toEqual(['mock-1'])
    expect(await failure(anthropic.models.retrieve('embed-mock'))).toMatchObject({ status: 404 })
  })
})

describe('a config that cannot serve its models does not start', () => {
  test('an embedding model on an Anthropic provider is refused, naming it', async () => {
    const config = parseConfig({
      listen: { host: '127.0.0.1', port: 0 },
      database: `sqlite:${join(mkdtempSync(join(tmpdir(), 'tollgate-embed-')), 'never.db')}`,
      providers: [{ name: 'claude', type: 'anthropic', api_key: 'k' }],
      models: [{ id: 'claude-embed', kind: 'embedding', provider: 'claude', price: { input: 1 } }],
    })
    await expect(startGateway(config, silentLogger)).rejects.toThrow(
      'models[0].provider: the model "claude-embed" is of kind embedding, but its provider "claude" is of type anthropic, which serves no embeddings',
    )
  })

  test('an embedding model takes an input price only, and falls back only to embedding models', () => {
    const config = (model: Record<string, unknown>) => ({
      providers: [{ name: 'mock', type: 'mock' }],
      models: [{ id: 'chat', provider: 'mock', price: { input: 1, output: 1 } }, model],
    })
    expect(() => parseConfig(config({ id: 'e', kind: 'embedding', provider: 'mock', price: { input: 1, output: 2 } }))).toThrow(
      'models[1].price.output: a model of kind embedding has no such price (expected one of: input, batch)',
    )
    expect(() => parseConfig(config({ id: 'e', kind: 'embedding', provider: 'mock', price: { input: 1 }, max_output_tokens: 10 }))).toThrow(
      'models[1].max_output_tokens: unknown setting',
    )
    expect(() => parseConfig(config({ id: 'e', kind: 'embedding', provider: 'mock', price: { input: 1 }, fallbacks: ['chat'] }))).toThrow(
      'models[1].fallbacks: "chat" is of kind chat, "e" of kind embedding: a fallback must be of its model\'s kind',
    )
    expect(() => parseConfig(config({ id: 'e', kind: 'vision', provider: 'mock', price: { input: 1 } }))).toThrow(
      'models[1].kind: must be one of chat, embedding',
    )
    expect(
      parseConfig(config({ id: 'e', kind: 'embedding', provider: 'mock', price: { input: '0.02', batch: { input: '0.01' } } })).models[1],
    ).toMatchObject({
      kind: 'embedding',
      price: { input: 20_000_000, output: 0 },
      batchPrice: { input: 10_000_000, output: 0 },
    })
  })
})
