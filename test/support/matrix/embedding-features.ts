import type { EmbeddingsUpstreams } from '../embeddings-upstreams.ts'
import type { RecordedRequest } from '../upstream.ts'
import type { Json, Policy } from './features.ts'

/**
 * Issue 26's embeddings matrix, beside chat's (features.ts): each embeddings request feature as each client protocol
 * says it (OpenAI's /v1/embeddings, Gemini's :embedContent and :batchEmbedContents), what the gateway does with it
 * toward each upstream kind that has embeddings, and how a test sees the upstream got its meaning.
 */
export type EmbeddingClient = 'openai-embeddings' | 'gemini-embeddings'
export type EmbeddingKind = 'openai' | 'gemini'

export const embeddingClients: EmbeddingClient[] = ['openai-embeddings', 'gemini-embeddings']
export const embeddingKinds: EmbeddingKind[] = ['openai', 'gemini']
export const embeddingNative: Record<EmbeddingClient, EmbeddingKind> = { 'openai-embeddings': 'openai', 'gemini-embeddings': 'gemini' }
/** The gateway model on each kind, named as upstream, so a forwarded body needs no rewriting. */
export const embeddingModels: Record<EmbeddingKind, string> = { openai: 'embed-matrix-openai', gemini: 'embed-matrix-gemini' }

export interface EmbeddingFeature {
  name: string
  /** As each client says it; a Gemini body with `requests` goes to :batchEmbedContents, else :embedContent. */
  body: Partial<Record<EmbeddingClient, Json>>
  policy: Record<EmbeddingKind, Policy>
  received?: Partial<Record<EmbeddingKind, (request: RecordedRequest) => boolean>>
  /** Where the evidence is in the answer (an OpenAI client's base64 vectors, its usage). */
  answered?: (client: EmbeddingClient, kind: EmbeddingKind, answer: Json) => boolean
  notes?: Partial<Record<EmbeddingKind, string>>
}

const content = (text: string) => ({ content: { parts: [{ text }] } })
const geminiRequests = (body: Json): Json[] => body.requests ?? [body]
const openAiInputs = (body: Json): unknown[] => (Array.isArray(body.input) ? body.input : [body.input])

export const embeddingFeatures: EmbeddingFeature[] = [
  {
    name: 'one text',
    body: { 'openai-embeddings': { input: 'Hello' }, 'gemini-embeddings': content('Hello') },
    policy: { openai: 'carried', gemini: 'carried' },
    received: {
      openai: (request) => openAiInputs(request.body).includes('Hello'),
      gemini: (request) => request.rawBody.includes('"Hello"'),
    },
  },
  {
    name: 'several inputs, in order',
    body: {
      'openai-embeddings': { input: ['one', 'two', 'three'] },
      'gemini-embeddings': { requests: ['one', 'two', 'three'].map(content) },
    },
    policy: { openai: 'carried', gemini: 'carried' },
    received: {
      openai: (request) => JSON.stringify(openAiInputs(request.body)) === '["one","two","three"]',
      gemini: (request) =>
        geminiRequests(request.body)
          .map((one) => one.content.parts[0].text)
          .join() === 'one,two,three',
    },
  },
  {
    name: 'token ids',
    body: { 'openai-embeddings': { input: [[9906, 1917]] } },
    policy: { openai: 'carried', gemini: 'refused' },
    received: { openai: (request) => JSON.stringify(request.body.input) === '[[9906,1917]]' },
    notes: {
      gemini: "Gemini embeds text only; the gateway does not turn token ids back into text (it does not know the client's tokenizer).",
    },
  },
  {
    name: 'dimensions',
    body: { 'openai-embeddings': { input: 'Hello', dimensions: 8 }, 'gemini-embeddings': { ...content('Hello'), outputDimensionality: 8 } },
    policy: { openai: 'carried', gemini: 'carried' },
    received: {
      openai: (request) => request.body.dimensions === 8,
      gemini: (request) => geminiRequests(request.body)[0]!.outputDimensionality === 8,
    },
  },
  {
    name: 'base64 vectors',
    body: { 'openai-embeddings': { input: 'Hello', encoding_format: 'base64' } },
    policy: { openai: 'carried', gemini: 'emulated' },
    received: { openai: (request) => request.body.encoding_format === 'base64', gemini: () => true },
    answered: (_, __, answer) => typeof answer.data[0].embedding === 'string',
    notes: { gemini: 'Gemini sends numbers; the gateway writes them as base64 float32s, as the OpenAI SDKs ask by default.' },
  },
  {
    name: 'task type',
    body: { 'gemini-embeddings': { ...content('Hello'), taskType: 'RETRIEVAL_QUERY' } },
    policy: { openai: 'refused', gemini: 'carried' },
    received: { gemini: (request) => geminiRequests(request.body)[0]!.taskType === 'RETRIEVAL_QUERY' },
    notes: {
      openai: 'An OpenAI-compatible embedding is the same whatever it is for; TASK_TYPE_UNSPECIFIED, which asks for nothing, is accepted.',
    },
  },
  {
    name: 'document title',
    body: { 'gemini-embeddings': { ...content('Hello'), taskType: 'RETRIEVAL_DOCUMENT', title: 'Greetings' } },
    policy: { openai: 'refused', gemini: 'carried' },
    received: { gemini: (request) => geminiRequests(request.body)[0]!.title === 'Greetings' },
  },
  {
    name: 'end-user id',
    body: { 'openai-embeddings': { input: 'Hello', user: 'end-user-7' } },
    policy: { openai: 'carried', gemini: 'ignored' },
    received: { openai: (request) => request.body.user === 'end-user-7' },
    notes: { gemini: 'Gemini has no such field: the id is not sent.' },
  },
  {
    name: 'usage',
    body: { 'openai-embeddings': { input: 'Hello there' } },
    policy: { openai: 'carried', gemini: 'emulated' },
    received: { openai: () => true, gemini: () => true },
    answered: (_, __, answer) => answer.usage.prompt_tokens > 0 && answer.usage.prompt_tokens === answer.usage.total_tokens,
    notes: {
      gemini:
        "Gemini's embed endpoints report no usage: the answer (and the bill, marked estimated) carries the gateway tokenizer's count of the inputs.",
    },
  },
]

/** The gateway config's embedding providers and models, on the loopback embeddings servers. */
export function embeddingMatrixConfig(upstreams: EmbeddingsUpstreams) {
  return {
    providers: [
      { name: 'embed-openai', type: 'openai', base_url: `${upstreams.openai.url}/v1`, api_key: 'openai-secret' },
      { name: 'embed-gemini', type: 'gemini', base_url: upstreams.gemini.url, api_key: 'gemini-secret' },
    ],
    models: (Object.entries(embeddingModels) as [EmbeddingKind, string][]).map(([kind, id]) => ({
      id,
      kind: 'embedding',
      provider: `embed-${kind}`,
      price: { input: 1 },
    })),
  }
}
