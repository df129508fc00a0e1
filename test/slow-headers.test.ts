import { afterAll, beforeAll, expect, test } from 'bun:test'
import { connect } from 'node:net'
import OpenAI from 'openai'
import { startTestGateway, type TestGateway } from './support/gateway.ts'
import { chatChunks, chatCompletion } from './support/openai-upstream.ts'
import { sseResponse, startUpstream, type TestUpstream } from './support/upstream.ts'

/**
 * Slow headers on a kept-alive connection: once an answer is made, the connection's timeout drops from Bun's long
 * one (255 s, which generations and silent streams need) to limits.write_idle_ms, so a client that trickles its
 * next request's headers is cut there (Bun restarts the timer only when a request's headers are complete, and counts
 * it in 4 s ticks, two at the least: 4–8 s after the answer). A new connection's first headers already get Bun's own
 * 10 s. Answers slower than the deadline — a non-streamed one, a stream that pauses — still arrive whole.
 */
const pauseMs = 7000
let upstream: TestUpstream
let gateway: TestGateway

beforeAll(async () => {
  upstream = startUpstream(async (request) => {
    const slow = request.body.model === 'slow'
    if (!request.body.stream) {
      if (slow) await Bun.sleep(pauseMs)
      return Response.json(chatCompletion(request, { text: 'Slow and whole' }))
    }
    const events = chatChunks(request, { text: 'Slow and streamed' })
    if (!slow) return sseResponse(events)
    return new Response(
      new ReadableStream({
        async start(controller) {
          for (const [index, event] of events.entries()) {
            if (index === 2) await Bun.sleep(pauseMs)
            controller.enqueue(new TextEncoder().encode(event))
          }
          controller.close()
        },
      }),
      { headers: { 'content-type': 'text/event-stream' } },
    )
  })
  gateway = await startTestGateway({
    config: {
      limits: { write_idle_ms: 2000 },
      providers: [{ name: 'up', type: 'openai', base_url: `${upstream.url}/v1`, api_key: 'sk-up' }],
      models: [
        { id: 'slow', provider: 'up', price: { input: 1, output: 2 } },
        { id: 'fast', provider: 'up', price: { input: 1, output: 2 } },
      ],
    },
  })
})
afterAll(async () => {
  await gateway.stop()
  await upstream.stop()
})

/**
 * One request sent whole on a new connection, its answer read; then the next request's headers a byte every 200 ms.
 * Resolves when the gateway closes the connection (ms after the trickle began), or after 15 s.
 */
function askThenTrickle(first: string): Promise<{ closedAfterMs: number | undefined; firstAnswer: string; laterBytes: number }> {
  const { hostname, port } = new URL(gateway.url)
  const next = `POST /v1/chat/completions HTTP/1.1\r\nhost: ${hostname}:${port}\r\nauthorization: Bearer ${gateway.key}\r\ncontent-type: application/json\r\nx-padding: ${'a'.repeat(200)}\r\n\r\n`
  return new Promise((resolve) => {
    let firstAnswer = ''
    let laterBytes = 0
    let trickling: number | undefined
    let timer: ReturnType<typeof setInterval> | undefined
    const socket = connect(Number(port), hostname, () => socket.write(first))
    const done = (closedAfterMs: number | undefined) => {
      clearInterval(timer)
      clearTimeout(giveUp)
      socket.destroy()
      resolve({ closedAfterMs, firstAnswer, laterBytes })
    }
    const giveUp = setTimeout(() => done(undefined), 18_000)
    setTimeout(() => {
      trickling = performance.now()
      let sent = 0
      timer = setInterval(() => {
        if (sent < next.length && !socket.destroyed) socket.write(next[sent++]!)
      }, 200)
    }, 1500)
    socket.on('data', (data) => {
      if (trickling === undefined) firstAnswer += data.toString()
      else laterBytes += data.length
    })
    socket.on('error', () => {})
    socket.on('close', () => done(trickling === undefined ? -1 : performance.now() - trickling))
  })
}

function post(path: string, headers: Record<string, string>, body: unknown): string {
  const { hostname, port } = new URL(gateway.url)
  const text = JSON.stringify(body)
  return `POST ${path} HTTP/1.1\r\nhost: ${hostname}:${port}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\n${Object.entries(
    headers,
  )
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}\r\n${text}`
}

const firsts = {
  'a whole answer': () =>
    post(
      '/v1/chat/completions',
      { authorization: `Bearer ${gateway.key}` },
      { model: 'fast', messages: [{ role: 'user', content: 'hi' }] },
    ),
  'a passthrough stream': () =>
    post(
      '/v1/chat/completions',
      { authorization: `Bearer ${gateway.key}` },
      { model: 'fast', stream: true, messages: [{ role: 'user', content: 'hi' }] },
    ),
  'a translated stream': () =>
    post(
      '/v1/messages',
      { 'x-api-key': gateway.key, 'anthropic-version': '2023-06-01' },
      { model: 'fast', max_tokens: 50, stream: true, messages: [{ role: 'user', content: 'hi' }] },
    ),
  'a refusal': () =>
    post(
      '/v1/chat/completions',
      { authorization: `Bearer ${gateway.key}` },
      { model: 'nope', messages: [{ role: 'user', content: 'hi' }] },
    ),
  'a model list': () => `GET /v1/models HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${gateway.key}\r\n\r\n`,
}

test("after each kind of answer, trickling the next request's headers is cut at the write deadline", async () => {
  const results = await Promise.all(Object.entries(firsts).map(async ([name, first]) => ({ name, ...(await askThenTrickle(first())) })))
  for (const { name, closedAfterMs, firstAnswer, laterBytes } of results) {
    expect({ name, answered: /^HTTP\/1\.1 (200|404|400)/.test(firstAnswer) }).toEqual({ name, answered: true })
    // 2 s, rounded up by Bun's 4-second timer; without it the connection is held for 255 s.
    expect({ name, closed: closedAfterMs !== undefined && closedAfterMs > 0 && closedAfterMs < 12_000 }).toEqual({ name, closed: true })
    expect(laterBytes).toBe(0)
  }
}, 30_000)

test('answers slower than the write deadline still arrive whole: a long generation, a stream that pauses', async () => {
  const client = new OpenAI({ apiKey: gateway.key, baseURL: gateway.baseUrl, maxRetries: 0 })
  const whole = client.chat.completions.create({ model: 'slow', messages: [{ role: 'user', content: 'hi' }] })
  const streamed = (async () => {
    let text = ''
    const stream = await client.chat.completions.create({ model: 'slow', stream: true, messages: [{ role: 'user', content: 'hi' }] })
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? ''
    return text
  })()
  expect((await whole).choices[0]!.message.content).toBe('Slow and whole')
  expect(await streamed).toBe('Slow and streamed')
}, 30_000)
