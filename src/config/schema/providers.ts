import { Type } from '@sinclair/typebox'
import { entry, headers, oneOf, readOnly, refuse, renamedSection, text } from './shapes.ts'

/** Each provider type, and where its requests go when `base_url` is not given: the one list of provider types. */
const defaultBaseUrls = {
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com',
  gemini: 'https://generativelanguage.googleapis.com',
  mock: 'mock://',
} as const

const providerTypes = Object.keys(defaultBaseUrls) as (keyof typeof defaultBaseUrls)[]

const timeoutsSchema = renamedSection(
  {
    connect_ms: Type.Number({
      minimum: 1,
      default: 10_000,
      description: 'Connecting to the upstream (`connect_timeout`); a refused connection fails at once.',
    }),
    first_byte_ms: Type.Number({
      minimum: 1,
      default: 120_000,
      description:
        "From sending the request to the response's head (`first_byte_timeout`); for a whole answer this " + 'bounds the generation too.',
    }),
    idle_ms: Type.Number({ minimum: 1, default: 120_000, description: 'The longest silence between two body chunks (`idle_timeout`).' }),
    total_ms: Type.Number({ minimum: 1, default: 600_000, description: 'The whole attempt (`total_timeout`).' }),
  },
  {
    description:
      'Timers of each upstream attempt, in milliseconds. Before an answer begins a timeout is retried like any ' +
      "upstream failure; after, the stream ends with the protocol's error event.",
  },
)

export const providerSchema = Type.Transform(
  entry({
    name: text({ description: 'What models name in `provider:` or `routes:`; unique.' }),
    type: oneOf(providerTypes, {
      description:
        "The upstream's protocol: `openai` (OpenAI and every OpenAI-compatible server: vLLM, llama.cpp, " +
        'Ollama…), `anthropic`, `gemini`, or `mock` (built in, deterministic, for demos and tests).',
    }),
    base_url: Type.Optional(
      text({
        defaultText: "the type's public API",
        description:
          "The upstream's URL (`http://` or `https://`), e.g. `http://127.0.0.1:9000/v1` for a local server. " +
          'Defaults: openai `https://api.openai.com/v1`, anthropic `https://api.anthropic.com`, gemini ' +
          '`https://generativelanguage.googleapis.com`.',
      }),
    ),
    api_key: Type.Optional(text({ description: 'The gateway\'s own key for this upstream, usually `"${OPENAI_API_KEY}"`; never logged.' })),
    headers: headers({ description: "Extra headers sent upstream on every request (an organisation id, a proxy's own auth…)." }),
    timeouts: timeoutsSchema,
    passthrough: Type.Boolean({
      default: true,
      description:
        "A request in the upstream's own protocol is forwarded byte for byte; `false` always translates through " +
        "the gateway's internal format.",
    }),
    client: oneOf(['auto', 'fetch'] as const, {
      default: 'auto',
      description:
        'How requests (chat, embeddings, images, rerank, speech, transcription; forwarded byte for byte or ' +
        'translated; uploads streamed from disk as they are sent) reach this upstream: ' +
        "`auto` uses Tollgate's own HTTP/1.1 client for an `http://` or `https://` base URL (no fetch thread between " +
        'upstream and client: less CPU and memory per request and per streamed chunk; TLS verified for the host against ' +
        "the same roots as fetch's, `NODE_EXTRA_CA_CERTS` included) and Bun's `fetch` through an HTTP proxy; `fetch` " +
        'always uses `fetch`.',
    }),
    chunk_delay_ms: Type.Number({ minimum: 0, default: 0, description: 'Mock only: milliseconds between streamed chunks.' }),
    embedding_inputs_per_call: Type.Optional(
      Type.Integer({
        minimum: 1,
        defaultText: 'openai 2048, gemini 100, mock unlimited',
        description:
          'The most inputs one embeddings call to this upstream carries; a request with more is split into ' +
          'several calls, joined back in order (text-embeddings-inference takes 32 by default).',
      }),
    ),
    rerank_api: Type.Optional(
      oneOf(['vllm', 'tei'] as const, {
        defaultText: '`vllm`',
        description:
          'How this OpenAI-kind upstream reranks: `vllm` (`POST /rerank` below `base_url` with `documents`, the ' +
          "shape vLLM, Jina and Cohere share) or `tei` (text-embeddings-inference's `POST /rerank` with `texts`: give its " +
          'root URL as `base_url`).',
      }),
    ),
  }),
)
  .Decode((provider) => {
    const baseUrl = (provider.base_url ?? defaultBaseUrls[provider.type]).replace(/\/+$/, '')
    if (provider.type !== 'mock' && !/^https?:\/\//.test(baseUrl)) refuse('must start with http:// or https://', 'base_url')
    return {
      name: provider.name,
      type: provider.type,
      baseUrl,
      apiKey: provider.api_key,
      headers: provider.headers,
      timeouts: provider.timeouts,
      passthrough: provider.passthrough,
      client: provider.client,
      chunkDelayMs: provider.chunk_delay_ms,
      embeddingInputsPerCall: provider.embedding_inputs_per_call,
      rerankApi: provider.rerank_api ?? 'vllm',
    }
  })
  .Encode(readOnly)
