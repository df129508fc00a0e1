import { afterAll, beforeAll, expect, test } from 'bun:test'
import OpenAI from 'openai'
import { startTestGateway, type TestGateway } from './support/gateway.ts'
import { sseResponse, startUpstream, type TestUpstream } from './support/upstream.ts'

/**
 * ISSUE 23: a passthrough stream forwards the upstream's bytes as they are, even to a client that did not ask for the
 * usage chunk (the gateway asks the upstream for it on the client's behalf and leaves it out). Before, every event of
 * such a stream was decoded and written again: the upstream's keep-alive comments, `id:` lines and CRLF line ends never
 * reached the client, and every chunk cost an encode.
 */
const chunk = (body: object) => JSON.stringify({ id: 'chatcmpl-raw', object: 'chat.completion.chunk', created: 1, model: 'up', ...body })
// What the upstream writes before its answer ends, written as it is: a comment, an `id:` line, CRLF, spaces after
// the colon, a character of four UTF-8 bytes.
const opening = [
  ': keep-alive\r\n\r\n',
  `id: 7\r\ndata:  ${chunk({ choices: [{ index: 0, delta: { role: 'assistant', content: 'Bytes 😀 ' }, finish_reason: null }], usage: null })}\r\n\r\n`,
  `data: ${chunk({ choices: [{ index: 0, delta: { content: 'as they are.' }, finish_reason: null }], usage: null })}\n\n`,
]
const ending = [
  `data: ${chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: null })}\n\n`,
  `data: ${chunk({ choices: [], usage: { prompt_tokens: 5, completion_tokens: 4, total_tokens: 9 } })}\n\n`,
  'data: [DONE]\n\n',
]

let upstream: TestUpstream
let gateway: TestGateway

beforeAll(async () => {
  // The opening's events come in reads of their own, well before the end (a pause between writes).
  upstream = startUpstream(() => sseResponse([...opening, ending.join('')], 30))
  gateway = await startTestGateway({
    config: {
      providers: [{ name: 'up', type: 'openai', base_url: `${upstream.url}/v1`, api_key: 'sk-up' }],
      models: [{ id: 'raw', provider: 'up', upstream_model: 'up', price: { input: 1, output: 2 } }],
    },
  })
})

afterAll(async () => {
  await gateway.stop()
  await upstream.stop()
})

test("a client that did not ask for usage gets the upstream's bytes as they are, without the usage chunk, and is billed from it", async () => {
  const before = await gateway.settled()
  const response = await fetch(`${gateway.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gateway.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'raw', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
  })
  const text = await response.text()
  expect(upstream.requests[0]!.body.stream_options).toEqual({ include_usage: true })
  expect(text.startsWith(opening.join(''))).toBe(true)
  expect(text).not.toContain('"usage":{')
  expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true)
  const after = await gateway.settled()
  expect(before.balance - after.balance).toBe(5 * 1000 + 4 * 2000) // $1/M input, $2/M output, in nano-dollars
})

test('the official SDK reads such a stream as usual', async () => {
  const client = new OpenAI({ baseURL: gateway.baseUrl, apiKey: gateway.key, maxRetries: 0 })
  let text = ''
  for await (const part of await client.chat.completions.create({
    model: 'raw',
    stream: true,
    messages: [{ role: 'user', content: 'hi' }],
  })) {
    text += part.choices[0]?.delta?.content ?? ''
    expect(part.usage ?? null).toBeNull()
  }
  expect(text).toBe('Bytes 😀 as they are.')
})
