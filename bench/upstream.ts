// A loopback OpenAI-compatible upstream for the benchmark: a fixed JSON answer, or a short SSE stream.
const completion = JSON.stringify({
  id: 'chatcmpl-bench', object: 'chat.completion', created: 1700000000, model: 'bench-upstream',
  choices: [{ index: 0, message: { role: 'assistant', content: 'Benchmarks are a kind of truth.' }, logprobs: null, finish_reason: 'stop' }],
  usage: { prompt_tokens: 12, completion_tokens: 8, total_tokens: 20 },
})
const chunk = (delta: unknown, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1700000000, model: 'bench-upstream', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`
const stream = [
  chunk({ role: 'assistant', content: '' }),
  ...'Benchmarks are a kind of truth.'.split(' ').map((word) => chunk({ content: `${word} ` })),
  chunk({}, 'stop'),
  `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1700000000, model: 'bench-upstream', choices: [], usage: { prompt_tokens: 12, completion_tokens: 8, total_tokens: 20 } })}\n\n`,
  'data: [DONE]\n\n',
].join('')

// An embeddings answer: one 256-float vector, as base64 (what the OpenAI SDKs ask for) or numbers.
const vector = Float32Array.from({ length: 256 }, (_, index) => Math.sin(index) / 8)
const embeddingsAs = (embedding: unknown) => JSON.stringify({
  object: 'list', data: [{ object: 'embedding', index: 0, embedding }], model: 'bench-embed-upstream', usage: { prompt_tokens: 7, total_tokens: 7 },
})
const embeddings = { base64: embeddingsAs(Buffer.from(vector.buffer).toString('base64')), float: embeddingsAs(Array.from(vector)) }

// UPSTREAM_DELAY_MS: wait this long before answering, like a real model does (the latency-bound case).
const delayMs = Number(process.env.UPSTREAM_DELAY_MS ?? 0)

const server = Bun.serve({
  hostname: '127.0.0.1',
  port: Number(process.env.PORT ?? 0),
  async fetch(request) {
    const body = (await request.json()) as { stream?: boolean; encoding_format?: 'base64' | 'float' }
    if (delayMs > 0) await Bun.sleep(delayMs)
    if (request.url.endsWith('/embeddings')) return new Response(embeddings[body.encoding_format ?? 'float'], { headers: { 'content-type': 'application/json' } })
    if (body.stream) return new Response(stream, { headers: { 'content-type': 'text/event-stream' } })
    return new Response(completion, { headers: { 'content-type': 'application/json' } })
  },
})
console.log(JSON.stringify({ url: `http://127.0.0.1:${server.port}` }))

export { server }
