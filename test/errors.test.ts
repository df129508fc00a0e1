import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import OpenAI from 'openai'
import { createApp } from '../src/app.ts'
import { startTestGateway, type TestGateway } from './support/gateway.ts'
import { jsonReply, startUpstream, type TestUpstream } from './support/upstream.ts'

let gateway: TestGateway
let upstream: TestUpstream

// An upstream that fails in the way the model id asks it to.
beforeAll(async () => {
  upstream = startUpstream((request) => {
    const model: string = request.body?.model ?? ''
    if (model === 'fails-500') return jsonReply({ error: { message: 'boom', type: 'server_error' } }, 500)
    if (model === 'fails-503') return jsonReply({ error: { message: 'overloaded', type: 'server_error' } }, 503)
    if (model === 'fails-401') return jsonReply({ error: { message: 'bad upstream key', type: 'invalid_request_error' } }, 401)
    if (model === 'fails-400')
      return jsonReply({ error: { message: "Unsupported parameter: 'foo'", type: 'invalid_request_error', param: 'foo' } }, 400)
    if (model === 'garbage') return new Response('<html>not json</html>', { headers: { 'content-type': 'text/html' } })
    return jsonReply({ error: { message: 'unexpected' } }, 500)
  })
  const price = { input: 1, output: 1 }
  gateway = await startTestGateway({
    config: {
      providers: [
        { name: 'mock', type: 'mock' },
        { name: 'flaky', type: 'openai', base_url: `${upstream.url}/v1` },
        { name: 'nowhere', type: 'openai', base_url: 'http://127.0.0.1:9/v1' },
        { name: 'slow', type: 'openai', base_url: `${upstream.url}/v1`, timeouts: { first_byte_ms: 50 } },
      ],
      models: [
        { id: 'mock-1', provider: 'mock', price },
        { id: 'mock-2', provider: 'mock', price },
        { id: 'fails-500', provider: 'flaky', price },
        { id: 'fails-503', provider: 'flaky', price },
        { id: 'fails-401', provider: 'flaky', price },
        { id: 'fails-400', provider: 'flaky', price },
        { id: 'garbage', provider: 'flaky', price },
        { id: 'unreachable', provider: 'nowhere', price },
      ],
    },
    keyModels: ['mock-1', 'fails-500', 'fails-503', 'fails-401', 'fails-400', 'garbage', 'unreachable'],
  })
})

afterAll(async () => {
  await gateway.stop()
  await upstream.stop()
})

async function post(body: unknown, key: string | null = gateway.key, path = '/chat/completions') {
  const response = await fetch(gateway.baseUrl + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key === null ? {} : { authorization: `Bearer ${key}` }) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
  return {
    status: response.status,
    body: (await response.json()) as { error: { message: string; type: string; param: string | null; code: string | null } },
  }
}

const hello = [{ role: 'user', content: 'hi' }]

describe('authentication', () => {
  test('a missing key is a 401 authentication_error', async () => {
    const { status, body } = await post({ model: 'mock-1', messages: hello }, null)
    expect(status).toBe(401)
    expect(body.error.type).toBe('authentication_error')
  })

  test('an unknown key is a 401, and the SDK raises AuthenticationError', async () => {
    const stranger = new OpenAI({ baseURL: gateway.baseUrl, apiKey: 'tg-not-a-real-key', maxRetries: 0 })
    const failure = await stranger.chat.completions
      .create({ model: 'mock-1', messages: [{ role: 'user', content: 'x' }] })
      .catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(OpenAI.AuthenticationError)
  })

  test('a revoked key is a 401 on every endpoint', async () => {
    const { secret, record } = await gateway.createKey()
    expect((await post({ model: 'mock-1', messages: hello }, secret)).status).toBe(200)
    await gateway.gateway.services.store.keys.revoke(record.id, Date.now())
    await gateway.gateway.services.keys.refresh()
    const { status, body } = await post({ model: 'mock-1', messages: hello }, secret)
    expect(status).toBe(401)
    expect(body.error.message).toContain('revoked')
    const models = await fetch(`${gateway.baseUrl}/models`, { headers: { authorization: `Bearer ${secret}` } })
    expect(models.status).toBe(401)
  })
})

describe('bad input is a 400 naming the field', () => {
  const cases: [string, unknown, string | null][] = [
    ['malformed JSON', '{"model": "mock-1", "messages": [', null],
    ['a body that is not an object', '[1,2]', null],
    ['missing model', { messages: hello }, 'model'],
    ['missing messages', { model: 'mock-1' }, 'messages'],
    ['empty messages', { model: 'mock-1', messages: [] }, 'messages'],
    ['a bad role', { model: 'mock-1', messages: [{ role: 'wizard', content: 'x' }] }, 'messages[0].role'],
    ['temperature above 2', { model: 'mock-1', messages: hello, temperature: 2.5 }, 'temperature'],
    ['temperature below 0', { model: 'mock-1', messages: hello, temperature: -0.1 }, 'temperature'],
    ['five stop sequences', { model: 'mock-1', messages: hello, stop: ['a', 'b', 'c', 'd', 'e'] }, 'stop'],
    ['model of the wrong type', { model: 42, messages: hello }, 'model'],
    ['messages of the wrong type', { model: 'mock-1', messages: 'hi' }, 'messages'],
    ['max_tokens of the wrong type', { model: 'mock-1', messages: hello, max_tokens: 'lots' }, 'max_tokens'],
    ['stream of the wrong type', { model: 'mock-1', messages: hello, stream: 'yes' }, 'stream'],
    ['a tool without a name', { model: 'mock-1', messages: hello, tools: [{ type: 'function', function: {} }] }, 'tools[0].function.name'],
  ]
  for (const [name, body, param] of cases) {
    test(name, async () => {
      const response = await post(body)
      expect(response.status).toBe(400)
      expect(response.body.error.type).toBe('invalid_request_error')
      expect(response.body.error.param).toBe(param)
      if (param) expect(response.body.error.message).toContain(param)
    })
  }

  test('temperature 0 and 2 and four stops are fine', async () => {
    expect((await post({ model: 'mock-1', messages: hello, temperature: 0, stop: ['a', 'b', 'c', 'd'] })).status).toBe(200)
    expect((await post({ model: 'mock-1', messages: hello, temperature: 2 })).status).toBe(200)
  })
})

describe('models', () => {
  test('an unknown model is a 404', async () => {
    const { status, body } = await post({ model: 'no-such-model', messages: hello })
    expect(status).toBe(404)
    expect(body.error.code).toBe('model_not_found')
  })

  test("a model outside the key's list is a 403", async () => {
    const { status, body } = await post({ model: 'mock-2', messages: hello })
    expect(status).toBe(403)
    expect(body.error.code).toBe('model_not_permitted')
  })

  test('an unknown path is a 404 in OpenAI shape', async () => {
    const response = await fetch(`${gateway.baseUrl}/no/such/path`, { headers: { authorization: `Bearer ${gateway.key}` } })
    expect(response.status).toBe(404)
    expect(((await response.json()) as { error: { type: string } }).error.type).toBe('not_found_error')
  })

  test('health needs no key', async () => {
    expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200)
  })
})

describe("the model endpoints answer alike through Bun's own routes and through Elysia", () => {
  // gateway.ts hands the protocol route table (protocols/routes.ts) to Bun.serve's native router; createApp mounts the
  // same table in Elysia. Whichever of the two a request reaches, the client must see the same answer — and the one
  // GET /v1/models route must pick the same protocol by the request's headers in both.
  const cases: [string, string, Record<string, string>, string | undefined][] = [
    [
      'POST',
      '/v1/chat/completions',
      { authorization: 'Bearer KEY' },
      JSON.stringify({ model: 'mock-1', messages: [{ role: 'user', content: 'hi' }] }),
    ],
    ['POST', '/v1/chat/completions', { authorization: 'Bearer KEY' }, '{not json'],
    ['POST', '/v1/chat/completions', {}, JSON.stringify({ model: 'mock-1', messages: hello })],
    [
      'POST',
      '/v1/messages?beta=true',
      { 'x-api-key': 'KEY', 'anthropic-version': '2023-06-01' },
      JSON.stringify({ model: 'mock-1', max_tokens: 5, messages: hello }),
    ],
    ['POST', '/v1/responses', { authorization: 'Bearer KEY' }, JSON.stringify({ model: 'fails-400', input: 'hi' })],
    ['GET', '/v1/chat/completions', { authorization: 'Bearer KEY' }, undefined],
    ['PUT', '/v1/messages', { 'x-api-key': 'KEY' }, '{}'],
    ['GET', '/v1/models', { authorization: 'Bearer KEY' }, undefined],
    ['GET', '/v1/models?limit=1', { 'x-api-key': 'KEY', 'anthropic-version': '2023-06-01' }, undefined],
    ['GET', '/v1/models/mock-1', { 'x-api-key': 'KEY', 'anthropic-version': '2023-06-01' }, undefined],
    ['GET', '/v1/models', { 'x-goog-api-key': 'KEY' }, undefined],
    ['GET', '/v1/models/mock-2', { 'x-goog-api-key': 'KEY' }, undefined],
    ['GET', '/v1/models/mock-1', { authorization: 'Bearer KEY' }, undefined],
    [
      'POST',
      '/v1beta/models/mock-1:generateContent',
      { 'x-goog-api-key': 'KEY' },
      JSON.stringify({ contents: [{ parts: [{ text: 'hi' }] }] }),
    ],
    ['POST', '/v1/models/mock-1:countTokens', { 'x-goog-api-key': 'KEY' }, JSON.stringify({ contents: [{ parts: [{ text: 'hi' }] }] })],
    [
      'POST',
      '/v1/messages/count_tokens',
      { 'x-api-key': 'KEY', 'anthropic-version': '2023-06-01' },
      JSON.stringify({ model: 'mock-1', messages: hello }),
    ],
    ['DELETE', '/v1/responses/resp_1', { authorization: 'Bearer KEY' }, undefined],
  ]
  for (const [method, path, headers, body] of cases) {
    const client = headers['anthropic-version'] ? ' (Anthropic)' : headers['x-goog-api-key'] ? ' (Gemini)' : ''
    test(`${method} ${path}${client}${body === '{not json' ? ' (bad JSON)' : ''}${headers.authorization || headers['x-api-key'] || headers['x-goog-api-key'] ? '' : ' (no key)'}`, async () => {
      const init = () => ({
        method,
        body,
        headers: {
          'content-type': 'application/json',
          ...Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, value.replace('KEY', gateway.key)])),
        },
      })
      const served = await fetch(gateway.url + path, init())
      const handled = await createApp(gateway.gateway.services).handle(new Request(`http://gateway${path}`, init()))
      expect(served.status).toBe(handled.status)
      expect(served.headers.has('x-request-id') || served.headers.has('request-id')).toBe(
        handled.headers.has('x-request-id') || handled.headers.has('request-id'),
      )
      // Ids and timestamps differ per request; the shape and the messages must not.
      const scrub = (text: string) =>
        text
          .replace(/"(id|request_id|created|created_at)":\s*("[^"]*"|\d+)/g, '"$1":0')
          .replace(/"responseId":\s*"[^"]*"/g, '"responseId":0')
          .replace(/(req|chatcmpl|msg|resp)_[A-Za-z0-9]+/g, '$1_')
      expect(scrub(await served.text())).toBe(scrub(await handled.text()))
      expect(served.headers.get('content-type')).toBe(handled.headers.get('content-type'))
    })
  }
})

describe("GET /v1/models is one route that answers in the shape of the client's protocol", () => {
  const list = (headers: Record<string, string>, query = '') =>
    fetch(`${gateway.baseUrl}/models${query}`, { headers }).then((response) => response.json() as Promise<Record<string, unknown>>)

  test('OpenAI by default, Anthropic with anthropic-version, Gemini with a Google key', async () => {
    const first = (body: Record<string, unknown>, field: string) => (body[field] as unknown[])[0]
    const openAi = await list({ authorization: `Bearer ${gateway.key}` })
    expect(openAi.object).toBe('list')
    expect(first(openAi, 'data')).toMatchObject({ id: 'mock-1', object: 'model' })
    const anthropic = await list({ 'x-api-key': gateway.key, 'anthropic-version': '2023-06-01' })
    expect(anthropic.has_more).toBe(false)
    expect(first(anthropic, 'data')).toMatchObject({ type: 'model', id: 'mock-1' })
    expect(first(await list({ 'x-goog-api-key': gateway.key }), 'models')).toMatchObject({ name: 'models/mock-1' })
    expect(first(await list({}, `?key=${gateway.key}`), 'models')).toMatchObject({ name: 'models/mock-1' })
  })

  test('each protocol refuses a missing key in its own words', async () => {
    expect(await list({ 'anthropic-version': '2023-06-01' })).toMatchObject({ type: 'error', error: { type: 'authentication_error' } })
    expect(await list({})).toMatchObject({ error: { type: 'authentication_error', code: 'missing_api_key' } })
  })
})

describe('upstream failures are 5xx and never billed', () => {
  const cases: [string, number][] = [
    ['fails-500', 502],
    ['fails-503', 503],
    ['fails-401', 502],
    ['garbage', 502],
    ['unreachable', 503],
  ]
  for (const [model, expected] of cases) {
    test(`${model} → ${expected}`, async () => {
      const before = await gateway.settled()
      const { status } = await post({ model, messages: hello })
      expect(status).toBe(expected)
      const after = await gateway.settled()
      expect(after.balance).toBe(before.balance)
      expect(after.reserved).toBe(0)
    })
  }

  test('an upstream 400 about the request reaches the client as a 400 with its message', async () => {
    const { status, body } = await post({ model: 'fails-400', messages: hello })
    expect(status).toBe(400)
    expect(body.error.message).toContain("Unsupported parameter: 'foo'")
  })

  test('failed requests still leave a usage row with their status and zero cost', async () => {
    await post({ model: 'fails-500', messages: hello })
    await gateway.settled()
    const summary = await gateway.gateway.services.store.usage.summarize({ keyId: gateway.keyRecord.id })
    expect(summary.requests).toBeGreaterThan(0)
  })
})

describe('balance', () => {
  test('a request whose worst case exceeds the balance is a 403 that says so, and nothing is spent', async () => {
    const poor = await gateway.createAccount(`poor-${Date.now()}`, '0.000001')
    const { secret } = await gateway.createKey({ accountId: poor.id })
    const { status, body } = await post({ model: 'mock-1', messages: hello }, secret)
    expect(status).toBe(403)
    expect(body.error.message).toContain('Insufficient balance')
    expect(body.error.type).toBe('insufficient_quota')
  })
})
