// A loopback upstream for the benchmarks, speaking OpenAI Chat Completions (/v1/chat/completions) and Anthropic
// Messages (/v1/messages): a fixed JSON answer, a short SSE stream (six chunks), or — when the last message says so — a
// long one:
//   "long chunks=150 interval_ms=50"  150 text chunks, one every 50 ms, then the finish and the usage report
//   "hold"                            the first text chunk, then nothing until the client goes away
import { createPng } from '../src/core/png.ts'

const completion = JSON.stringify({
  id: 'chatcmpl-bench',
  object: 'chat.completion',
  created: 1700000000,
  model: 'bench-upstream',
  choices: [
    { index: 0, message: { role: 'assistant', content: 'Benchmarks are a kind of truth.' }, logprobs: null, finish_reason: 'stop' },
  ],
  usage: { prompt_tokens: 12, completion_tokens: 8, total_tokens: 20 },
})
const chunk = (delta: unknown, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1700000000, model: 'bench-upstream', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`
const usageChunk = (completion: number) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1700000000, model: 'bench-upstream', choices: [], usage: { prompt_tokens: 12, completion_tokens: completion, total_tokens: 12 + completion } })}\n\n`
const stream = [
  chunk({ role: 'assistant', content: '' }),
  ...'Benchmarks are a kind of truth.'.split(' ').map((word) => chunk({ content: `${word} ` })),
  chunk({}, 'stop'),
  usageChunk(8),
  'data: [DONE]\n\n',
].join('')

// An embeddings answer: one 256-float vector, as base64 (what the OpenAI SDKs ask for) or numbers.
const vector = Float32Array.from({ length: 256 }, (_, index) => Math.sin(index) / 8)
const embeddingsAs = (embedding: unknown) =>
  JSON.stringify({
    object: 'list',
    data: [{ object: 'embedding', index: 0, embedding }],
    model: 'bench-embed-upstream',
    usage: { prompt_tokens: 7, total_tokens: 7 },
  })
const embeddings = { base64: embeddingsAs(Buffer.from(vector.buffer).toString('base64')), float: embeddingsAs(Array.from(vector)) }

// A speech answer: 48 KB of audio bytes in six 8 KB chunks, each its own write, as a TTS server streams them.
const audioChunk = new Uint8Array(8 * 1024)
const audio = () =>
  new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (let index = 0; index < 6; index++) {
        controller.enqueue(audioChunk)
        await Bun.sleep(0)
      }
      controller.close()
    },
  })
// A rerank answer (vLLM's shape) and an images answer (one small PNG's bytes, as gpt-image models send them).
const ranked = JSON.stringify({
  id: 'rerank-bench',
  model: 'bench-rerank-upstream',
  results: [
    { index: 0, relevance_score: 0.9 },
    { index: 2, relevance_score: 0.4 },
  ],
  usage: { total_tokens: 30 },
})
const image = JSON.stringify({
  created: 1700000000,
  data: [{ b64_json: Buffer.from(createPng(256, 256, 'bench')).toString('base64') }],
  size: '256x256',
  quality: 'low',
  output_format: 'png',
})
const answers: Record<string, string> = { '/v1/rerank': ranked, '/v1/images/generations': image }

/** One wire format's events for a long stream: its opening, a text chunk, its ending (finish and usage). */
interface LongStreamWire {
  open: string
  text(word: string): string
  end(chunks: number): string
}
const anthropicEvent = (type: string, body: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...body })}\n\n`
const wires: Record<string, LongStreamWire> = {
  '/v1/chat/completions': {
    open: chunk({ role: 'assistant', content: '' }),
    text: (word) => chunk({ content: word }),
    end: (chunks) => chunk({}, 'stop') + usageChunk(chunks) + 'data: [DONE]\n\n',
  },
  '/v1/messages': {
    open:
      anthropicEvent('message_start', {
        message: {
          id: 'msg_bench',
          type: 'message',
          role: 'assistant',
          model: 'bench-upstream',
          content: [],
          stop_reason: null,
          usage: { input_tokens: 12, output_tokens: 1 },
        },
      }) + anthropicEvent('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
    text: (word) => anthropicEvent('content_block_delta', { index: 0, delta: { type: 'text_delta', text: word } }),
    end: (chunks) =>
      anthropicEvent('content_block_stop', { index: 0 }) +
      anthropicEvent('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: chunks } }) +
      anthropicEvent('message_stop', {}),
  },
}
const words = ['Benchmarks ', 'are ', 'a ', 'kind ', 'of ', 'truth. ']
const message = JSON.stringify({
  id: 'msg_bench',
  type: 'message',
  role: 'assistant',
  model: 'bench-upstream',
  content: [{ type: 'text', text: words.join('') }],
  stop_reason: 'end_turn',
  usage: { input_tokens: 12, output_tokens: 8 },
})

/** The long stream a message asks for, or undefined. */
function longStream(wire: LongStreamWire, text: string, signal: AbortSignal, always: boolean): ReadableStream | undefined {
  const hold = text === 'hold'
  const long = /^long chunks=(\d+) interval_ms=(\d+)/.exec(text)
  if (!hold && !long && !always) return undefined
  const chunks = hold ? 1 : long ? Number(long[1]) : words.length
  const intervalMs = long ? Number(long[2]) : 0
  return new ReadableStream({
    type: 'direct',
    async pull(controller: ReadableStreamDirectController) {
      controller.write(wire.open + wire.text(words[0]!))
      controller.flush()
      if (hold) return await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }))
      for (let index = 1; index < chunks && !signal.aborted; index++) {
        if (intervalMs > 0) await Bun.sleep(intervalMs)
        controller.write(wire.text(words[index % words.length]!))
        controller.flush()
      }
      controller.write(wire.end(chunks))
      controller.close()
    },
  } as unknown as UnderlyingDefaultSource)
}

/** A message's text, whether sent as a string or as content blocks (a translated request's). */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content
  return Array.isArray(content) ? content.map((block: { text?: string }) => block.text ?? '').join('') : ''
}

// UPSTREAM_DELAY_MS: wait this long before answering, like a real model does (the latency-bound case).
const delayMs = Number(process.env.UPSTREAM_DELAY_MS ?? 0)
const sse = { 'content-type': 'text/event-stream' }

// BENCH_TLS=1: served over https with the test certificate (test/fixtures/tls), as the public APIs are; every process
// of the run must trust it: start the bench with NODE_EXTRA_CA_CERTS=test/fixtures/tls/loopback-cert.pem.
const fixtures = new URL('../test/fixtures/tls/', import.meta.url)
const tls = process.env.BENCH_TLS
  ? { cert: Bun.file(new URL('loopback-cert.pem', fixtures)), key: Bun.file(new URL('loopback-key.pem', fixtures)) }
  : undefined

const server = Bun.serve({
  hostname: '127.0.0.1',
  port: Number(process.env.PORT ?? 0),
  idleTimeout: 0,
  ...(tls ? { tls } : {}),
  async fetch(request) {
    const body = (await request.json()) as { stream?: boolean; messages?: { content?: unknown }[]; encoding_format?: 'base64' | 'float' }
    if (delayMs > 0) await Bun.sleep(delayMs)
    if (request.url.endsWith('/audio/speech')) return new Response(audio(), { headers: { 'content-type': 'audio/wav' } })
    if (request.url.endsWith('/embeddings'))
      return new Response(embeddings[body.encoding_format ?? 'float'], { headers: { 'content-type': 'application/json' } })
    const answer = answers[new URL(request.url).pathname]
    if (answer) return new Response(answer, { headers: { 'content-type': 'application/json' } })
    // Anthropic's route answers only in its own format: its short stream is a long one of six chunks without pauses.
    const anthropic = request.url.endsWith('/v1/messages')
    const wire = wires[new URL(request.url).pathname]
    const long = body.stream && wire ? longStream(wire, textOf(body.messages?.at(-1)?.content), request.signal, anthropic) : undefined
    if (long) return new Response(long, { headers: sse })
    if (body.stream) return new Response(stream, { headers: sse })
    return new Response(anthropic ? message : completion, { headers: { 'content-type': 'application/json' } })
  },
})
console.log(JSON.stringify({ url: `${tls ? 'https' : 'http'}://127.0.0.1:${server.port}` }))

export { server }
