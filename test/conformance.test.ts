import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startTestGateway, type TestGateway } from './support/gateway.ts'
import { clientNames, type ClientName, features, type Json, kinds, type Kind, nativeKind, policyOf } from './support/matrix/features.ts'
import { type MatrixUpstreams, startMatrixUpstreams } from './support/matrix/upstreams.ts'
import { defineMediaMatrix, renderMediaMatrix } from './support/matrix/media-matrix.ts'
import { type EmbeddingsUpstreams, startEmbeddingsUpstreams } from './support/embeddings-upstreams.ts'
import {
  type EmbeddingClient,
  embeddingClients,
  embeddingFeatures,
  type EmbeddingKind,
  embeddingKinds,
  embeddingMatrixConfig,
  embeddingModels,
  embeddingNative,
} from './support/matrix/embedding-features.ts'
import { audioMatrixConfig, renderAudio, runAudioMatrix } from './support/matrix/audio-features.ts'
import { type AudioUpstream, startAudioUpstream } from './support/audio-upstream.ts'

/**
 * Issue 17's conformance matrix: every request feature, from every client protocol, to every upstream kind, through
 * recording upstreams. A cell is `passthrough` (the client's own bytes reached an upstream of its protocol), `carried`
 * or `emulated` (the upstream's body shows the feature's meaning, and the answer where that is the evidence),
 * `refused` (the client got a 400 naming the field and the upstream kind, and the upstream got nothing) or `ignored`
 * (a documented choice). Nothing else: a field silently dropped fails its cell. The run writes docs/conformance.md
 * when CONFORMANCE_WRITE=1 is set; otherwise the last test checks the committed file is what this run produces.
 */
type Cell = 'passthrough' | 'carried' | 'emulated' | 'refused' | 'ignored'
const results = new Map<string, Cell>()
const cellKey = (feature: string, client: ClientName, kind: Kind) => `${feature}|${client}|${kind}`

let upstreams: MatrixUpstreams
let embeddingUpstreams: EmbeddingsUpstreams
let audioUpstream: AudioUpstream
let gateway: TestGateway

beforeAll(async () => {
  upstreams = startMatrixUpstreams()
  embeddingUpstreams = startEmbeddingsUpstreams()
  // Room for a thinking budget under the output cap (Anthropic wants budget < max_tokens, and at least 1024).
  for (const model of upstreams.config.models as Json[]) model.max_output_tokens = 8192
  audioUpstream = startAudioUpstream()
  const embeddings = embeddingMatrixConfig(embeddingUpstreams)
  const audio = audioMatrixConfig(audioUpstream)
  const config = {
    ...upstreams.config,
    providers: [...(upstreams.config.providers as Json[]), ...embeddings.providers, ...audio.providers],
    models: [...(upstreams.config.models as Json[]), ...embeddings.models, ...audio.models],
  }
  gateway = await startTestGateway({ config, balanceUsd: '1000' })
})

afterAll(async () => {
  await gateway?.stop()
  await upstreams?.stop()
  await embeddingUpstreams?.stop()
  await audioUpstream?.stop()
})

/** One raw request in the client's protocol, with its credentials; the body exactly as sent. */
async function send(client: ClientName, model: string, body: Json, stream: boolean) {
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  let path: string
  let full: Json
  if (client === 'gemini') {
    path = `/v1beta/models/${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`
    headers['x-goog-api-key'] = gateway.key
    full = body
  } else if (client === 'anthropic') {
    path = '/v1/messages'
    headers['x-api-key'] = gateway.key
    headers['anthropic-version'] = '2023-06-01'
    full = { model, max_tokens: 256, ...body }
  } else {
    path = client === 'openai-chat' ? '/v1/chat/completions' : '/v1/responses'
    headers.authorization = `Bearer ${gateway.key}`
    full = { model, ...body }
  }
  const sent = JSON.stringify(full)
  const response = await fetch(`${gateway.url}${path}`, { method: 'POST', headers, body: sent, signal: AbortSignal.timeout(5000) })
  const text = await response.text()
  let json: Json | undefined
  try {
    json = JSON.parse(text)
  } catch {}
  return { status: response.status, text, json, sent }
}

describe.each(features.map((feature) => [feature.name, feature] as const))('%s', (_, feature) => {
  const cells = clientNames.flatMap((client) => (feature.body[client] ? kinds.map((kind) => [client, kind] as const) : []))
  test.each(cells)('%s client → %s upstream', async (client, kind) => {
    const spec = upstreams.specs[kind]
    const server = spec.server!
    const seen = server.requests.length
    const reply = await send(client, spec.model, feature.body[client]!, feature.stream ?? false)
    let cell: Cell
    if (nativeKind[client] === kind) {
      expect(reply.status).toBe(200)
      // The client's own body, every field of it (the gateway only caps the output tokens and may add usage options).
      expect(server.requests.at(-1)!.body).toMatchObject(JSON.parse(reply.sent))
      cell = 'passthrough'
    } else {
      cell = policyOf(feature, client, kind)
      if (cell === 'refused') {
        expect(reply.status).toBe(400)
        expect(reply.json?.error?.message).toContain(`(${kind})`)
        expect(server.requests.length).toBe(seen) // refused before anything was sent
      } else {
        expect({ status: reply.status, body: reply.status === 200 ? '' : reply.text }).toEqual({ status: 200, body: '' })
        expect(server.requests.length).toBe(seen + 1)
        if (cell !== 'ignored') expect(feature.received[kind]!(server.requests.at(-1)!)).toBe(true)
      }
    }
    if (feature.answered && reply.status === 200 && !feature.stream) expect(feature.answered(client, kind, reply.json!)).toBe(true)
    results.set(cellKey(feature.name, client, kind), cell)
  })
})

/** One raw embeddings request in the client's protocol; a Gemini body with `requests` is a batch, each naming its model. */
async function sendEmbedding(client: EmbeddingClient, model: string, body: Json) {
  let path = '/v1/embeddings'
  let headers: Record<string, string> = { authorization: `Bearer ${gateway.key}` }
  let full: Json = { model, ...body }
  if (client === 'gemini-embeddings') {
    path = `/v1beta/models/${model}:${body.requests ? 'batchEmbedContents' : 'embedContent'}`
    headers = { 'x-goog-api-key': gateway.key }
    full = body.requests ? { requests: body.requests.map((request: Json) => ({ model: `models/${model}`, ...request })) } : body
  }
  const sent = JSON.stringify(full)
  const response = await fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: sent,
  })
  return { status: response.status, json: (await response.json()) as Json, sent }
}

const embeddingResults = new Map<string, Cell>()

describe.each(embeddingFeatures.map((feature) => [feature.name, feature] as const))('embeddings: %s', (_, feature) => {
  const cells = embeddingClients.flatMap((client) => (feature.body[client] ? embeddingKinds.map((kind) => [client, kind] as const) : []))
  test.each(cells)('%s client → %s upstream', async (client, kind) => {
    const server = embeddingUpstreams[kind]
    const seen = server.requests.length
    const reply = await sendEmbedding(client, embeddingModels[kind], feature.body[client]!)
    let cell: Cell
    if (embeddingNative[client] === kind) {
      expect(reply.status).toBe(200)
      expect(server.requests.at(-1)!.body).toMatchObject(JSON.parse(reply.sent))
      cell = 'passthrough'
    } else {
      cell = feature.policy[kind]
      if (cell === 'refused') {
        expect(reply.status).toBe(400)
        expect(reply.json.error.message).toContain(`(${kind})`)
        expect(server.requests.length).toBe(seen)
      } else {
        expect({ status: reply.status, body: reply.status === 200 ? '' : reply.json }).toEqual({ status: 200, body: '' })
        expect(server.requests.length).toBe(seen + 1)
        if (cell !== 'ignored') expect(feature.received![kind]!(server.requests.at(-1)!)).toBe(true)
      }
    }
    if (feature.answered && reply.status === 200) expect(feature.answered(client, kind, reply.json)).toBe(true)
    embeddingResults.set(cellKey(feature.name, client as never, kind as never), cell)
  })
})

const audioResults = runAudioMatrix(() => ({ gateway, upstream: audioUpstream }))

/** The embeddings section of the doc: its own matrix (its clients and the upstream kinds that have embeddings). */
function renderEmbeddings(): string[] {
  const short: Record<EmbeddingClient, string> = { 'openai-embeddings': 'OpenAI', 'gemini-embeddings': 'Gemini' }
  const columns = embeddingClients.flatMap((client) => embeddingKinds.map((kind) => [client, kind] as const))
  const lines = [
    '## Embeddings',
    '',
    "The same for embeddings: OpenAI's `POST /v1/embeddings` and Gemini's `:embedContent` / `:batchEmbedContents`, to each",
    'upstream kind that has embeddings (an embedding model on an Anthropic provider is refused when the config loads).',
    'A request with more inputs than the upstream takes in one call is split and joined back in order; the built-in',
    'mock embeds every input (token ids included) and accepts task types and titles, which change nothing.',
    '',
    '| feature | ' + columns.map(([client, kind]) => `${short[client]} → ${kind}`).join(' | ') + ' |',
    '|---|' + columns.map(() => '---').join('|') + '|',
  ]
  for (const feature of embeddingFeatures) {
    lines.push(
      `| ${feature.name} | ` +
        columns.map(([client, kind]) => embeddingResults.get(cellKey(feature.name, client as never, kind as never)) ?? '—').join(' | ') +
        ' |',
    )
  }
  lines.push('')
  for (const feature of embeddingFeatures) {
    for (const kind of embeddingKinds) {
      const note = feature.notes?.[kind as EmbeddingKind]
      if (note) lines.push(`- **${feature.name} → ${kind}** (${feature.policy[kind]}): ${note}`)
    }
  }
  lines.push('')
  return lines
}

/** The markdown: the matrix from this run's cells, then every non-plain cell's reason from the feature table. */
function renderDoc(): string {
  const short: Record<string, string> = { 'openai-chat': 'Chat', 'openai-responses': 'Responses', anthropic: 'Messages', gemini: 'Gemini' }
  const columns = clientNames.flatMap((client) => kinds.map((kind) => [client, kind] as const))
  const lines = [
    '# Translation conformance',
    '',
    '<!-- Generated by test/conformance.test.ts (CONFORMANCE_WRITE=1 bun test test/conformance.test.ts); do not edit by hand. -->',
    '',
    'What the gateway does with each request feature, for each client protocol (Chat Completions, Responses,',
    'Anthropic Messages, Gemini generateContent) and each upstream kind (OpenAI-compatible, Anthropic, Gemini).',
    'Every cell is a test that sends the feature through the gateway to a recording upstream and checks what that',
    'upstream received (and, where the evidence is in the answer, what the client got back):',
    '',
    "- **passthrough**: the client speaks the upstream's own protocol; its request is forwarded as bytes, every field included.",
    "- **carried**: translated into the upstream's own field with the same meaning.",
    '- **emulated**: the upstream has no such field; the gateway gets the same effect another way (see the notes).',
    "- **refused**: a 400 in the client's protocol naming the field and the upstream kind, before anything is sent;",
    "  not retried on another route and not counted against the route's health.",
    '- **ignored**: accepted and not sent, by design (see the notes for why).',
    '- **—**: the client protocol has no way to say it.',
    '',
    '| feature | ' + columns.map(([client, kind]) => `${short[client]} → ${kind}`).join(' | ') + ' |',
    '|---|' + columns.map(() => '---').join('|') + '|',
  ]
  for (const feature of features) {
    lines.push(
      `| ${feature.name} | ` + columns.map(([client, kind]) => results.get(cellKey(feature.name, client, kind)) ?? '—').join(' | ') + ' |',
    )
  }
  lines.push('', '## Notes', '')
  for (const feature of features) {
    for (const kind of kinds) {
      const note = feature.notes?.[kind]
      if (note) lines.push(`- **${feature.name} → ${kind}** (${feature.policy[kind]}): ${note}`)
    }
    for (const [cell, exception] of Object.entries(feature.exceptions ?? {})) {
      const [client, kind] = cell.split('>')
      lines.push(`- **${feature.name}, ${short[client!]} client → ${kind}** (${exception!.policy}): ${exception!.note}`)
    }
  }
  lines.push(
    '',
    '## Answers',
    '',
    "- Structured output comes back as the answer's text (JSON), so every SDK's parse helper works: OpenAI",
    '  `chat.completions.parse`, Anthropic `messages.parse`, on every upstream kind (test/structured-output.test.ts).',
    '- Log probabilities come back in Chat Completions, Responses and Gemini answers, whole and streamed (on the text they',
    "  describe: a Responses text delta, a Gemini chunk's candidate).",
    "- Usage: cached input tokens are reported in each protocol's own field. On a streamed Anthropic answer,",
    '  `message_start` carries the exact input tokens when the upstream reports them before the answer (Anthropic,',
    '  Gemini); an OpenAI upstream reports them only at the end, so `message_start` carries an estimate',
    "  (characters / 4) and the final `message_delta` the exact counts, which the SDK's `finalMessage()` keeps.",
    '- The built-in mock provider ignores generation settings (it answers from the prompt), except structured output,',
    '  which it answers with an object that fits the schema.',
    '',
    ...renderEmbeddings(),
    ...renderMediaMatrix(),
    ...renderAudio(audioResults),
  )
  return lines.join('\n')
}

describe('images and rerank', defineMediaMatrix)

test('docs/conformance.md is what this run produces', async () => {
  const doc = renderDoc()
  const path = `${import.meta.dir}/../docs/conformance.md`
  if (process.env.CONFORMANCE_WRITE === '1') await Bun.write(path, doc)
  expect(await Bun.file(path).text()).toBe(doc)
})

test("a refusal for the upstream kind is the request's fault: never retried, never held against the route", async () => {
  const { isRetryable } = await import('../src/relay/retry.ts')
  const { refuseField } = await import('../src/providers/refuse-field.ts')
  const refusal = refuseField('logprobs', 'anthropic', 'gives no token log probabilities')
  expect(refusal.status).toBe(400)
  expect(isRetryable(refusal)).toBe(false)
  // The route still answers at once afterwards: no breaker opened by the 400s above.
  const spec = upstreams.specs.anthropic
  const reply = await send('openai-chat', spec.model, { messages: [{ role: 'user', content: 'Hello' }] }, false)
  expect(reply.status).toBe(200)
})
