import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import OpenAI from 'openai'
import type { Logger } from '../src/core/logger.ts'
import { startTestGateway, type TestGateway } from './support/gateway.ts'
import { jsonReply, startUpstream, type TestUpstream } from './support/upstream.ts'

/**
 * Errors are never silent: an exception nobody foresaw is logged once, with its stack and the request id, and the
 * client gets a 500 in its protocol's shape. A whole answer that cannot be encoded is billed as what the client got —
 * nothing — never as the 200 the upstream gave.
 */

type Line = Record<string, unknown> & { level: string; message: string }
const lines: Line[] = []
const logger: Logger = {
  info: (fields, message) => lines.push({ ...fields, level: 'info', message }),
  warn: (fields, message) => lines.push({ ...fields, level: 'warn', message }),
  error: (fields, message) => lines.push({ ...fields, level: 'error', message }),
}
const unexpected = (requestId?: string) =>
  lines.filter((line) => line.message === 'unexpected error' && (requestId === undefined || line.request_id === requestId))

let gateway: TestGateway
let upstream: TestUpstream
let client: OpenAI

beforeAll(async () => {
  // An OpenAI-compatible upstream whose answer decodes but carries a numeric id: the Chat Completions encoder, which
  // expects a string, throws on it — an encoder failure as a real upstream can cause one.
  upstream = startUpstream(() =>
    jsonReply({
      id: 12345,
      object: 'chat.completion',
      created: 1,
      model: 'upstream-model',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hello' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 1000, completion_tokens: 1000, total_tokens: 2000 },
    }),
  )
  gateway = await startTestGateway({
    logger,
    config: {
      // No passthrough: the answer goes through the IR and the client protocol's encoder.
      providers: [
        { name: 'odd', type: 'openai', base_url: `${upstream.url}/v1`, passthrough: false },
        { name: 'mock', type: 'mock' },
      ],
      models: [
        { id: 'odd-id', provider: 'odd', price: { input: 1, output: 2 } },
        { id: 'mock-1', provider: 'mock', price: { input: 1, output: 2 } },
      ],
    },
  })
  client = new OpenAI({ apiKey: gateway.key, baseURL: gateway.baseUrl, maxRetries: 0 })
})

afterAll(async () => {
  await gateway.stop()
  await upstream.stop()
})

describe('a whole answer that cannot be encoded', () => {
  test('is a 500 in OpenAI shape, settled as a 500 that costs nothing, and logged with its stack', async () => {
    const before = await gateway.settled()
    const caught = await client.chat.completions
      .create({ model: 'odd-id', messages: [{ role: 'user', content: 'hi' }] })
      .catch((error) => error)
    expect(caught).toBeInstanceOf(OpenAI.APIError)
    expect(caught.status).toBe(500)
    expect(caught.error).toMatchObject({ type: 'server_error', message: 'The answer could not be encoded' })
    const requestId = caught.requestID as string
    expect(requestId).toStartWith('req_')

    const after = await gateway.settled()
    expect(after.balance).toBe(before.balance)
    expect(after.reserved).toBe(0)
    const rows = await gateway.gateway.services.store.usage.listRequests({ keyId: gateway.keyRecord.id }, 50)
    const row = rows.find((entry) => entry.requestId === requestId)
    expect(row).toMatchObject({ status: 500, cost: 0, errorType: 'internal', model: 'odd-id' })

    const logged = unexpected(requestId)
    expect(logged).toHaveLength(1)
    expect(logged[0]).toMatchObject({ level: 'error', error: 'TypeError', route: 'odd/odd-id' })
    expect(String(logged[0]!.stack)).toContain('encodeChatResponse')
    // The upstream answered: its route is healthy, whatever became of the answer afterwards.
    expect(gateway.gateway.services.relay.breaker.snapshot().find((route) => route.route === 'odd/odd-id')?.failures ?? 0).toBe(0)
  })
})

describe('an unexpected exception elsewhere', () => {
  test('in the protocol handler is logged once, with its stack, the request id and the route', async () => {
    const { relay } = gateway.gateway.services
    const run = relay.run
    relay.run = () => {
      throw new TypeError('relay exploded')
    }
    try {
      const response = await fetch(`${gateway.baseUrl}/chat/completions?key=never-logged`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gateway.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'mock-1', messages: [{ role: 'user', content: 'a secret prompt' }] }),
      })
      expect(response.status).toBe(500)
      // The client sees a generic error, never the exception's own message.
      expect(await response.json()).toEqual({ error: { message: 'Internal gateway error', type: 'server_error', param: null, code: null } })
      const requestId = response.headers.get('x-request-id')!
      const logged = unexpected(requestId)
      expect(logged).toHaveLength(1)
      expect(logged[0]).toMatchObject({ error: 'TypeError', message: 'unexpected error', route: 'POST /v1/chat/completions' })
      expect(String(logged[0]!.stack)).toContain('relay exploded')
      const text = JSON.stringify(logged[0])
      for (const secret of [gateway.key, 'never-logged', 'a secret prompt']) expect(text).not.toContain(secret)
    } finally {
      relay.run = run
    }
  })

  test("outside the protocol handlers (Elysia's onError) is logged once, with its stack", async () => {
    const { metrics } = gateway.gateway.services.relay
    const render = metrics.render
    metrics.render = () => {
      throw new RangeError('metrics exploded')
    }
    const before = unexpected().length
    try {
      const response = await fetch(`${gateway.url}/metrics`)
      expect(response.status).toBe(500)
      expect(((await response.json()) as { error: { message: string } }).error.message).toBe('Internal gateway error')
      const logged = unexpected().slice(before)
      expect(logged).toHaveLength(1)
      expect(logged[0]).toMatchObject({ error: 'RangeError', route: 'GET /metrics' })
      expect(String(logged[0]!.stack)).toContain('metrics exploded')
    } finally {
      metrics.render = render
    }
  })
})
