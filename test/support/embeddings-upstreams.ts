import { mockEmbedding } from '../../src/operations/embeddings/providers/mock.ts'
import { jsonReply, type RecordedRequest, startUpstream, type TestUpstream } from './upstream.ts'

/**
 * Loopback embeddings servers of both upstream kinds, answering with the mock's deterministic vectors
 * (`mockEmbedding`) so a test can tell which text reached which vector whatever the route:
 * - OpenAI-compatible `POST /v1/embeddings`: numbers or base64 as asked, and usage of one token per character of each
 *   text (one per id), so bills are exact; with `reverseOrder`, `data` comes back to front (the index says where each
 *   belongs, as the API allows);
 * - Gemini `:batchEmbedContents` and `:embedContent`: numbers only, and no usage (as Gemini's embed endpoints).
 * `failNext` makes the next calls fail with that status (fault injection).
 */
export interface EmbeddingsUpstreams {
  openai: TestUpstream
  gemini: TestUpstream
  /** Statuses the next calls (to either server) fail with, in order. */
  failNext: number[]
  /** The OpenAI-kind server lists `data` back to front. */
  reverseOrder: boolean
  /** Both servers wait this long before answering (a client may leave meanwhile). */
  delayMs: number
  stop(): Promise<void>
}

/** What the OpenAI-kind server reports for one input: a token per character (per id for token inputs). */
export function openAiReportedTokens(input: string | number[]): number {
  return input.length
}

/** The text a server embeds for an input, as the mock does. */
const textOf = (input: string | number[]) => (typeof input === 'string' ? input : `tokens:${input.join(',')}`)

function answerOpenAi(request: RecordedRequest, reverse: boolean): Response {
  const body = request.body
  const inputs: (string | number[])[] = typeof body.input === 'string' || typeof body.input[0] === 'number' ? [body.input] : body.input
  const data = inputs.map((input, index) => {
    const vector = mockEmbedding(textOf(input), body.dimensions)
    const embedding = body.encoding_format === 'base64' ? Buffer.from(vector.buffer).toString('base64') : Array.from(vector)
    return { object: 'embedding', index, embedding }
  })
  const tokens = inputs.reduce((sum, input) => sum + openAiReportedTokens(input), 0)
  return jsonReply({
    object: 'list',
    data: reverse ? data.reverse() : data,
    model: body.model,
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  })
}

function answerGemini(request: RecordedRequest): Response {
  const embed = (one: any) => ({
    values: Array.from(mockEmbedding(one.content.parts.map((part: any) => part.text).join('\n'), one.outputDimensionality)),
  })
  if (request.path.includes(':embedContent')) return jsonReply({ embedding: embed(request.body) })
  return jsonReply({ embeddings: request.body.requests.map(embed) })
}

export function startEmbeddingsUpstreams(): EmbeddingsUpstreams {
  const failNext: number[] = []
  const fail = () => {
    const status = failNext.shift()
    return status === undefined ? undefined : jsonReply({ error: { message: `failing on purpose (${status})`, code: status } }, status)
  }
  const upstreams: EmbeddingsUpstreams = {
    openai: startUpstream(async (request) => (await Bun.sleep(upstreams.delayMs), fail() ?? answerOpenAi(request, upstreams.reverseOrder))),
    gemini: startUpstream(async (request) => (await Bun.sleep(upstreams.delayMs), fail() ?? answerGemini(request))),
    failNext,
    reverseOrder: false,
    delayMs: 0,
    stop: async () => void (await Promise.all([upstreams.openai.stop(), upstreams.gemini.stop()])),
  }
  return upstreams
}

/** A gateway config with an embedding model on each upstream kind (and a chat model), priced so rounding shows. */
export function embeddingsConfig(
  upstreams: EmbeddingsUpstreams,
  extra: { providers?: Record<string, unknown>; models?: Record<string, unknown>[] } = {},
) {
  const price = { input: '0.0201' } // 20.1 nano-dollars a token: every bill is rounded up to the nano-dollar
  return {
    providers: [
      { name: 'mock', type: 'mock' },
      { name: 'oai', type: 'openai', base_url: `${upstreams.openai.url}/v1`, api_key: 'sk-upstream', ...extra.providers },
      { name: 'gem', type: 'gemini', base_url: upstreams.gemini.url, api_key: 'g-upstream', ...extra.providers },
    ],
    models: [
      { id: 'mock-1', provider: 'mock', price: { input: 1, output: 2 } },
      { id: 'embed-mock', kind: 'embedding', provider: 'mock', price },
      { id: 'embed-openai', kind: 'embedding', provider: 'oai', upstream_model: 'text-embedding-3-small', price },
      { id: 'embed-gemini', kind: 'embedding', provider: 'gem', upstream_model: 'gemini-embedding-001', price },
      ...(extra.models ?? []),
    ],
  }
}

/** The bill at `embeddingsConfig`'s price: 20.1 nano-dollars a token, rounded up once. */
export function embeddingsCost(tokens: number): number {
  return Math.ceil((tokens * 201) / 10)
}
