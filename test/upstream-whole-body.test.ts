import { afterAll, beforeAll, expect, test } from 'bun:test'
import { startTestGateway, type TestGateway } from './support/gateway.ts'

/**
 * A whole upstream answer that arrives in one piece with its head (the usual small answer, taken at once without a
 * read or a timer) is held to `limits.upstream_body_bytes` as one read piece by piece is: a chunked body over the cap
 * is a 502 `upstream_malformed`, unbilled; one within it is answered and billed.
 */
let content = ''
const upstream = Bun.listen({
  hostname: '127.0.0.1',
  port: 0,
  socket: {
    data(socket) {
      const body = JSON.stringify({
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 1,
        model: 'm',
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 10, completion_tokens: 20, total_tokens: 30 },
      })
      // Head, body (no declared length) and its end in one write: the gateway reads them in one piece.
      const size = Buffer.byteLength(body).toString(16)
      socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n${size}\r\n${body}\r\n0\r\n\r\n`)
    },
  },
})
let gateway: TestGateway

beforeAll(async () => {
  gateway = await startTestGateway({
    config: {
      limits: { upstream_body_bytes: 1024 },
      routing: { max_attempts: 1 },
      providers: [{ name: 'small', type: 'openai', base_url: `http://127.0.0.1:${upstream.port}/v1`, api_key: 'sk-up' }],
      models: [{ id: 'small', provider: 'small', price: { input: 1, output: 2 } }],
    },
  })
})
afterAll(async () => {
  await gateway.stop()
  upstream.stop(true)
})

const ask = () =>
  fetch(`${gateway.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gateway.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'small', messages: [{ role: 'user', content: 'hi' }] }),
  })

test('a chunked answer over upstream_body_bytes that came whole with its head is a 502, unbilled', async () => {
  const before = await gateway.settled()
  content = 'a'.repeat(2000)
  const response = await ask()
  expect(response.status).toBe(502)
  expect(((await response.json()) as { error: { code: string } }).error.code).toBe('upstream_malformed')
  expect((await gateway.settled()).balance).toBe(before.balance)
})

test('one within the cap is answered whole and billed', async () => {
  const before = await gateway.settled()
  content = 'Hello there.'
  const response = await ask()
  expect(response.status).toBe(200)
  const answer = (await response.json()) as { choices: { message: { content: string } }[]; usage: { total_tokens: number } }
  expect(answer.choices[0]!.message.content).toBe('Hello there.')
  expect(answer.usage.total_tokens).toBe(30)
  expect((await gateway.settled()).balance).toBeLessThan(before.balance)
})
