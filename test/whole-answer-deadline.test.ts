import { afterAll, beforeAll, expect, test } from 'bun:test'
import { connect } from 'node:net'
import OpenAI from 'openai'
import { startTestGateway, type TestGateway } from './support/gateway.ts'
import { startOpenAiUpstream } from './support/openai-upstream.ts'

/**
 * A whole (non-streamed) answer to a client that never reads it is held to the same write deadline as a stream
 * (limits.write_idle_ms): its connection is dropped, instead of Bun holding the unsent rest for its idle timeout
 * (255 s). Bun counts connection timeouts in 4 s ticks and the gateway never sets one under two ticks (so a
 * kept-alive connection is not closed the moment after its answer: respond.ts), so the drop comes 4–8 s after the
 * answer with a deadline of 1 s. A client that reads gets the same large answer whole.
 */
const text = 'word '.repeat(1_600_000) + 'end 😀' // 8 MB: more than the loopback socket buffers hold
const upstream = startOpenAiUpstream(() => ({ text }))
let gateway: TestGateway

beforeAll(async () => {
  gateway = await startTestGateway({
    config: {
      limits: { write_idle_ms: 1000 },
      providers: [{ name: 'up', type: 'openai', base_url: `${upstream.url}/v1`, api_key: 'sk-up' }],
      models: [{ id: 'big', provider: 'up', price: { input: 1, output: 2 } }],
    },
  })
})
afterAll(async () => {
  await gateway.stop()
  await upstream.stop()
})

/** Send one request, read nothing for `pauseMs`, then read on until the connection closes or `readMs` passes. */
function askAndStall(
  path: string,
  headers: Record<string, string>,
  body: unknown,
  pauseMs: number,
  readMs: number,
): Promise<{ bytes: number; closed: boolean }> {
  const { hostname, port } = new URL(gateway.url)
  const payload = JSON.stringify(body)
  return new Promise((resolve) => {
    let bytes = 0
    let closed = false
    const socket = connect(Number(port), hostname, () => {
      socket.pause()
      const head = Object.entries({
        host: `${hostname}:${port}`,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(payload)),
        ...headers,
      })
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('')
      socket.write(`POST ${path} HTTP/1.1\r\n${head}\r\n${payload}`)
      setTimeout(() => socket.resume(), pauseMs)
      setTimeout(() => {
        socket.destroy()
        resolve({ bytes, closed })
      }, pauseMs + readMs)
    })
    socket.on('data', (data) => (bytes += data.length))
    socket.on('error', () => {})
    socket.on('close', () => {
      closed = true
      resolve({ bytes, closed })
    })
  })
}

for (const mode of ['passthrough', 'translated'] as const) {
  test(`${mode}: a client that never reads a large whole answer is dropped at the write deadline`, async () => {
    const result =
      mode === 'passthrough'
        ? await askAndStall(
            '/v1/chat/completions',
            { authorization: `Bearer ${gateway.key}` },
            { model: 'big', messages: [{ role: 'user', content: 'hi' }] },
            9500,
            3000,
          )
        : await askAndStall(
            '/v1/messages',
            { 'x-api-key': gateway.key, 'anthropic-version': '2023-06-01' },
            { model: 'big', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] },
            9500,
            3000,
          )
    // Without a deadline the client, reading at last (after 9.5 s), gets all 8 MB on a connection still open.
    expect(result.closed).toBe(true)
    expect(result.bytes).toBeLessThan(text.length)
  }, 20_000)
}

test('a client that reads gets a large whole answer intact, through the SDK', async () => {
  const client = new OpenAI({ apiKey: gateway.key, baseURL: gateway.baseUrl })
  const completion = await client.chat.completions.create({ model: 'big', messages: [{ role: 'user', content: 'hi' }] })
  expect(completion.choices[0]!.message.content).toBe(text)
  const response = await fetch(`${gateway.url}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': gateway.key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'big', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] }),
  })
  expect(response.headers.get('content-length')).toBe(String((await response.clone().arrayBuffer()).byteLength))
  expect((await response.json()).content[0].text).toBe(text)
}, 20_000)
