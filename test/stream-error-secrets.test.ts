import { afterAll, beforeAll, expect, test } from 'bun:test'
import OpenAI from 'openai'
import { startTestGateway, type TestGateway } from './support/gateway.ts'
import { startUpstream, type TestUpstream } from './support/upstream.ts'

/**
 * An upstream's in-stream error event that quotes the credential it received reaches the client scrubbed, on the
 * passthrough path (where the event was forwarded as raw bytes) and on translated paths (where only key-shaped text
 * was scrubbed, not the configured key itself): the error is re-framed in the protocol's own error shape. The event
 * comes in two network writes, the key in the first, so a tap that forwarded bytes as they came would leak it.
 */
const openaiKey = 'plainOPERATORsecret0123456789'
const anthropicKey = 'otherOPERATORsecret9876543210'
const secrets = [openaiKey, anthropicKey]
const pieces = secrets.map((secret) => secret.slice(5, 21))

let upstream: TestUpstream
let gateway: TestGateway

const encoder = new TextEncoder()
function writes(parts: string[]): Response {
  return new Response(
    new ReadableStream({
      async start(controller) {
        for (const part of parts) {
          controller.enqueue(encoder.encode(part))
          await Bun.sleep(30)
        }
        controller.close()
      },
    }),
    { headers: { 'content-type': 'text/event-stream' } },
  )
}

/** The error event in two writes, cut in the middle of the quoted key. */
function splitError(event: string, key: string): string[] {
  const at = event.indexOf(key) + 6
  return [event.slice(0, at), event.slice(at)]
}

beforeAll(async () => {
  upstream = startUpstream((request) => {
    const got = request.headers.authorization?.replace(/^Bearer /, '') ?? request.headers['x-api-key'] ?? ''
    if (request.headers['x-api-key']) {
      const error = `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: `Overloaded while serving ${got} (key ${got.slice(5, 21)})` } })}\n\n`
      return writes([
        `event: message_start\ndata: ${JSON.stringify({ type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'm', content: [], stop_reason: null, usage: { input_tokens: 5, output_tokens: 1 } } })}\n\n` +
          `event: content_block_start\ndata: ${JSON.stringify({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } })}\n\n` +
          `event: content_block_delta\ndata: ${JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hello' } })}\n\n`,
        ...splitError(error, got),
      ])
    }
    const chunk = (delta: unknown) =>
      `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`
    const error = `data: ${JSON.stringify({ error: { message: `Proxy failed with token ${got} (key ${got.slice(5, 21)})`, type: 'server_error' } })}\n\n`
    return writes([chunk({ role: 'assistant', content: '' }) + chunk({ content: 'Hello' }), ...splitError(error, got)])
  })
  const price = { input: 1, output: 2 }
  gateway = await startTestGateway({
    config: {
      routing: { max_attempts: 1 },
      providers: [
        { name: 'openai', type: 'openai', base_url: `${upstream.url}/v1`, api_key: openaiKey },
        { name: 'anthropic', type: 'anthropic', base_url: upstream.url, api_key: anthropicKey },
      ],
      models: [
        { id: 'gpt', provider: 'openai', price },
        { id: 'claude', provider: 'anthropic', price },
      ],
    },
  })
})
afterAll(async () => {
  await gateway.stop()
  await upstream.stop()
})

async function ask(protocol: 'chat' | 'messages', model: string, extra: Record<string, unknown> = {}): Promise<string> {
  const response =
    protocol === 'chat'
      ? await fetch(`${gateway.baseUrl}/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${gateway.key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: 'hi' }], ...extra }),
        })
      : await fetch(`${gateway.url}/v1/messages`, {
          method: 'POST',
          headers: { 'x-api-key': gateway.key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
          body: JSON.stringify({ model, max_tokens: 50, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
        })
  expect(response.status).toBe(200)
  return response.text()
}

function expectScrubbed(text: string): void {
  for (const secret of [...secrets, ...pieces]) expect(text).not.toContain(secret)
  expect(text).toContain('[redacted]')
}

const cases = [
  {
    name: 'passthrough Chat Completions (usage asked for: bytes as they came)',
    protocol: 'chat',
    model: 'gpt',
    extra: { stream_options: { include_usage: true } },
  },
  { name: 'passthrough Chat Completions (events re-framed)', protocol: 'chat', model: 'gpt', extra: {} },
  { name: 'passthrough Messages', protocol: 'messages', model: 'claude', extra: {} },
  { name: 'translated Chat Completions from Messages', protocol: 'chat', model: 'claude', extra: {} },
  { name: 'translated Messages from Chat Completions', protocol: 'messages', model: 'gpt', extra: {} },
] as const

for (const { name, protocol, model, extra } of cases) {
  test(`${name}: an in-stream error event quoting the upstream key reaches the client scrubbed, in the protocol's error shape`, async () => {
    const text = await ask(protocol, model, extra)
    expect(text).toContain('Hello')
    expectScrubbed(text)
    if (protocol === 'chat') expect(text).toMatch(/data: \{"error":\{"message":"[^"]*\[redacted\]/)
    else expect(text).toMatch(/event: error\ndata: \{"type":"error","error":\{"type":"[a-z_]+","message":"[^"]*\[redacted\]/)
  })
}

test('the OpenAI SDK reads the re-framed error event as an APIError, scrubbed', async () => {
  const client = new OpenAI({ apiKey: gateway.key, baseURL: gateway.baseUrl, maxRetries: 0 })
  const stream = await client.chat.completions.create({ model: 'gpt', stream: true, messages: [{ role: 'user', content: 'hi' }] })
  let text = ''
  const failure = await (async () => {
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? ''
  })().catch((error: Error) => error)
  expect(text).toBe('Hello')
  expect(failure).toBeInstanceOf(OpenAI.APIError)
  expectScrubbed((failure as Error).message)
})
