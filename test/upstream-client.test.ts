import { afterAll, beforeAll, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import OpenAI, { toFile } from 'openai'
import { startTestGateway, type TestGateway } from './support/gateway.ts'

/**
 * Chat, embeddings and speech requests to an `http://` upstream, forwarded or translated, go over Tollgate's own HTTP/1.1 client
 * (providers/http1-client.ts) unless the provider says `client: fetch`; either way the answer and the bill are the
 * same, and the client holds limits.upstream_connections. The upstream tells the two apart by what fetch adds: its User-Agent.
 */
const seen: { model: string; userAgent: string | null; acceptEncoding: string | null }[] = []
let answering = 0
let mostAtOnce = 0
const chunk = (body: object) =>
  `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'up', ...body })}\n\n`
const upstream = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  async fetch(request) {
    if (request.url.endsWith('/audio/transcriptions')) return transcribe(request)
    const body = (await request.json()) as { model: string; stream?: boolean }
    seen.push({ model: body.model, userAgent: request.headers.get('user-agent'), acceptEncoding: request.headers.get('accept-encoding') })
    if (body.model === 'gzip') {
      // A server that compresses whatever it was asked.
      const compressed = Bun.gzipSync(JSON.stringify({ id: 'c1', object: 'chat.completion', created: 1, model: 'up', choices: [] }))
      return new Response(compressed, { headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } })
    }
    if (request.url.endsWith('/audio/speech'))
      return new Response(new Uint8Array(4096).fill(7), { headers: { 'content-type': 'audio/mpeg' } })
    if (request.url.endsWith('/embeddings')) {
      const data = [{ object: 'embedding', index: 0, embedding: [0.25, -0.5] }]
      return Response.json({ object: 'list', data, model: body.model, usage: { prompt_tokens: 4, total_tokens: 4 } })
    }
    const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 }
    if (body.stream) {
      const events = [
        chunk({ choices: [{ index: 0, delta: { role: 'assistant', content: 'hello ' }, finish_reason: null }] }),
        chunk({ choices: [{ index: 0, delta: { content: 'there' }, finish_reason: null }] }),
        chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
        chunk({ choices: [], usage }),
        'data: [DONE]\n\n',
      ]
      return new Response(events.join(''), { headers: { 'content-type': 'text/event-stream' } })
    }
    answering++
    mostAtOnce = Math.max(mostAtOnce, answering)
    await Bun.sleep(150)
    answering--
    return Response.json({
      id: 'c1',
      object: 'chat.completion',
      created: 1,
      model: 'up',
      choices: [{ index: 0, message: { role: 'assistant', content: 'slow answer' }, finish_reason: 'stop' }],
      usage,
    })
  },
})

/** What transcription uploads arrived as: the model, who sent them, and the file's bytes. */
const uploads: { model: string; userAgent: string | null; file: Uint8Array }[] = []
async function transcribe(request: Request): Promise<Response> {
  const form = await request.formData()
  const model = String(form.get('model'))
  uploads.push({
    model,
    userAgent: request.headers.get('user-agent'),
    file: new Uint8Array(await (form.get('file') as File).arrayBuffer()),
  })
  if (model === 'too-big') return Response.json({ error: { message: 'file too large', type: 'invalid_request_error' } }, { status: 413 })
  if (form.get('stream') !== 'true') return Response.json({ text: 'heard you' })
  const events = [
    { type: 'transcript.text.delta', delta: 'heard ' },
    { type: 'transcript.text.done', text: 'heard you' },
  ]
  return new Response(events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join(''), {
    headers: { 'content-type': 'text/event-stream' },
  })
}

let gateway: TestGateway
let client: OpenAI
beforeAll(async () => {
  const baseUrl = `http://127.0.0.1:${upstream.port}/v1`
  const price = { input: 1, output: 2 }
  gateway = await startTestGateway({
    config: {
      limits: { upstream_connections: 2 },
      providers: [
        { name: 'own', type: 'openai', base_url: baseUrl },
        { name: 'fetched', type: 'openai', base_url: baseUrl, client: 'fetch' },
        // Every request translated through the IR (encoded anew), as between two protocols: the own client too.
        { name: 'translated', type: 'openai', base_url: baseUrl, passthrough: false },
      ],
      models: [
        { id: 'via-own', price, routes: [{ provider: 'own', upstream_model: 'own' }] },
        { id: 'via-fetch', price, routes: [{ provider: 'fetched', upstream_model: 'fetched' }] },
        { id: 'via-translated', price, routes: [{ provider: 'translated', upstream_model: 'translated' }] },
        { id: 'via-gzip', price, routes: [{ provider: 'own', upstream_model: 'gzip' }] },
        { id: 'hear-own', kind: 'transcription', price: { audio_minute: 6 }, routes: [{ provider: 'own', upstream_model: 'hear' }] },
        { id: 'hear-too-big', kind: 'transcription', price: { audio_minute: 6 }, routes: [{ provider: 'own', upstream_model: 'too-big' }] },
        { id: 'speak-own', kind: 'speech', price: { characters: 1000 }, routes: [{ provider: 'own', upstream_model: 'speech' }] },
        {
          id: 'embed-translated',
          kind: 'embedding',
          price: { input: 1 },
          routes: [{ provider: 'translated', upstream_model: 'translated-embed' }],
        },
      ],
    },
  })
  client = new OpenAI({ baseURL: gateway.baseUrl, apiKey: gateway.key, maxRetries: 0 })
})
afterAll(async () => {
  await gateway.stop()
  upstream.stop(true)
})

test('a stream forwarded over the own client and one over fetch read the same, and are billed the same', async () => {
  const before = await gateway.settled()
  for (const model of ['via-own', 'via-fetch']) {
    const stream = await client.chat.completions.create({ model, stream: true, messages: [{ role: 'user', content: 'hi' }] })
    let text = ''
    for await (const part of stream) text += part.choices[0]?.delta?.content ?? ''
    expect(text).toBe('hello there')
  }
  expect(seen.find((request) => request.model === 'own')?.userAgent).toBeNull()
  expect(seen.find((request) => request.model === 'fetched')?.userAgent).toStartWith('Bun/')

  const after = await gateway.settled()
  const rows = await gateway.gateway.services.store.usage.listRequests({ accountId: gateway.account.id }, 10)
  expect(rows.map((row) => [row.model, row.status, row.inputTokens, row.outputTokens])).toEqual([
    ['via-fetch', 200, 10, 5],
    ['via-own', 200, 10, 5],
  ])
  expect(rows[0]!.cost).toBe(rows[1]!.cost)
  expect(rows[0]!.cost).toBeGreaterThan(0)
  expect(before.balance - after.balance).toBe(rows[0]!.cost + rows[1]!.cost)
})

test('the own client runs at most limits.upstream_connections requests at once; the rest wait their turn', async () => {
  mostAtOnce = 0
  const answers = await Promise.all(
    Array.from({ length: 5 }, () => client.chat.completions.create({ model: 'via-own', messages: [{ role: 'user', content: 'hi' }] })),
  )
  expect(answers.map((answer) => answer.choices[0]!.message.content)).toEqual(Array(5).fill('slow answer'))
  expect(mostAtOnce).toBe(2)
})

test('a translated request, whole and streamed, goes over the own client too, and is billed as a forwarded one', async () => {
  const before = await gateway.settled()
  const stream = await client.chat.completions.create({
    model: 'via-translated',
    stream: true,
    messages: [{ role: 'user', content: 'hi' }],
  })
  let text = ''
  for await (const part of stream) text += part.choices[0]?.delta?.content ?? ''
  expect(text).toBe('hello there')
  const whole = await client.chat.completions.create({ model: 'via-translated', messages: [{ role: 'user', content: 'hi' }] })
  expect(whole.choices[0]!.message.content).toBe('slow answer')
  const translated = seen.filter((request) => request.model === 'translated')
  expect(translated.map((request) => request.userAgent)).toEqual([null, null])
  const after = await gateway.settled()
  const rows = await gateway.gateway.services.store.usage.listRequests({ accountId: gateway.account.id }, 2)
  expect(rows.map((row) => [row.model, row.status, row.inputTokens, row.outputTokens])).toEqual([
    ['via-translated', 200, 10, 5],
    ['via-translated', 200, 10, 5],
  ])
  expect(before.balance - after.balance).toBe(rows[0]!.cost + rows[1]!.cost)
})

test('an embeddings request encoded from the IR goes over the own client too, and is billed for its tokens', async () => {
  const before = await gateway.settled()
  const answer = await client.embeddings.create({ model: 'embed-translated', input: 'hi', encoding_format: 'float' })
  expect(answer.data[0]!.embedding).toEqual([0.25, -0.5])
  expect(seen.filter((request) => request.model === 'translated-embed').map((request) => request.userAgent)).toEqual([null])
  const after = await gateway.settled()
  const [row] = await gateway.gateway.services.store.usage.listRequests({ accountId: gateway.account.id }, 1)
  expect([row!.model, row!.status, row!.inputTokens]).toEqual(['embed-translated', 200, 4])
  expect(before.balance - after.balance).toBe(row!.cost)
  expect(row!.cost).toBeGreaterThan(0)
})

test('the own client asks for no content coding; an answer encoded anyway is a 502, not relayed, not billed', async () => {
  expect(seen.find((request) => request.model === 'own')?.acceptEncoding).toBe('identity')
  const before = await gateway.settled()
  const error = await client.chat.completions
    .create({ model: 'via-gzip', messages: [{ role: 'user', content: 'hi' }] })
    .catch((failure) => failure)
  expect(error).toBeInstanceOf(OpenAI.APIError)
  expect(error.status).toBe(502)
  expect(error.message).toContain('encoded as gzip')
  const after = await gateway.settled()
  expect(after.balance).toBe(before.balance)
})

test("speech's audio comes over the own client as it is, and is billed for its characters", async () => {
  const before = await gateway.settled()
  const audio = await client.audio.speech.create({ model: 'speak-own', input: 'hello there', voice: 'alloy' })
  expect(new Uint8Array(await audio.arrayBuffer())).toEqual(new Uint8Array(4096).fill(7))
  expect(seen.filter((request) => request.model === 'speech').map((request) => request.userAgent)).toEqual([null])
  const after = await gateway.settled()
  const [row] = await gateway.gateway.services.store.usage.listRequests({ accountId: gateway.account.id }, 1)
  expect([row!.model, row!.status]).toEqual(['speak-own', 200])
  expect(row!.cost).toBeGreaterThan(0)
  expect(before.balance - after.balance).toBe(row!.cost)
})

test("a transcription's upload goes over the own client whole, whole and streamed answers alike, each billed its seconds", async () => {
  const wav = readFileSync('test/fixtures/audio/wav-pcm16.wav') // 1.5 s: billed as 2
  const before = await gateway.settled()
  const whole = await client.audio.transcriptions.create({ model: 'hear-own', file: await toFile(wav, 'a.wav') })
  expect(whole.text).toBe('heard you')
  const stream = await client.audio.transcriptions.create({ model: 'hear-own', file: await toFile(wav, 'a.wav'), stream: true })
  let text = ''
  for await (const event of stream) if (event.type === 'transcript.text.delta') text += event.delta
  expect(text).toBe('heard ')
  expect(uploads.map((upload) => [upload.model, upload.userAgent])).toEqual([
    ['hear', null],
    ['hear', null],
  ])
  for (const upload of uploads) expect(upload.file).toEqual(new Uint8Array(wav))
  const after = await gateway.settled()
  const rows = await gateway.gateway.services.store.usage.listRequests({ accountId: gateway.account.id }, 2)
  expect(rows.map((row) => [row.model, row.status])).toEqual([
    ['hear-own', 200],
    ['hear-own', 200],
  ])
  // $6 a minute: 2 seconds are $0.2, in nano-dollars.
  expect(rows.map((row) => row.cost)).toEqual([200_000_000, 200_000_000])
  expect(before.balance - after.balance).toBe(400_000_000)
})

test("an upload the upstream refuses is an error in OpenAI's shape, not billed", async () => {
  const wav = readFileSync('test/fixtures/audio/wav-pcm16.wav')
  const before = await gateway.settled()
  const error = await client.audio.transcriptions
    .create({ model: 'hear-too-big', file: await toFile(wav, 'a.wav') })
    .catch((failure) => failure)
  expect(error).toBeInstanceOf(OpenAI.APIError)
  expect(error.status).toBeGreaterThanOrEqual(400)
  expect(error.message).toContain('file too large')
  const after = await gateway.settled()
  expect(after.balance).toBe(before.balance)
})
