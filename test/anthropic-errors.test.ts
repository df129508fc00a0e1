import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { startAnthropicSetup, type AnthropicSetup } from './support/anthropic-setup.ts'

let setup: AnthropicSetup
let client: Anthropic

beforeAll(async () => {
  setup = await startAnthropicSetup()
  client = new Anthropic({ baseURL: setup.gateway.url, apiKey: setup.gateway.key, maxRetries: 0 })
})

afterAll(() => setup.stop())

const hi: Anthropic.MessageParam[] = [{ role: 'user', content: 'hi' }]

async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${setup.gateway.url}${path}`, {
    method: 'POST',
    headers: { 'x-api-key': setup.gateway.key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
  return { status: response.status, headers: response.headers, body: (await response.json()) as any }
}

describe("errors reach Anthropic clients in Anthropic's shape", () => {
  test('a wrong key is a 401 authentication_error, with the request id in body and header', async () => {
    const wrong = new Anthropic({ baseURL: setup.gateway.url, apiKey: 'tg-not-a-key', maxRetries: 0 })
    const error = await wrong.messages.create({ model: 'mock-1', max_tokens: 10, messages: hi }).catch((caught) => caught)
    expect(error).toBeInstanceOf(Anthropic.AuthenticationError)
    expect(error.type).toBe('authentication_error')
    expect(error.error).toMatchObject({ type: 'error', error: { type: 'authentication_error' } })
    expect(error.requestID).toStartWith('req_')
    expect(error.error.request_id).toBe(error.requestID)
  })

  test('a missing key says which header to send', async () => {
    const response = await post('/v1/messages', { model: 'mock-1', max_tokens: 10, messages: hi }, { 'x-api-key': '' })
    expect(response.status).toBe(401)
    expect(response.body.error.message).toContain('x-api-key')
  })

  test("the key is also accepted as a bearer token (the SDK's auth-token mode)", async () => {
    const bearer = new Anthropic({ baseURL: setup.gateway.url, apiKey: null, authToken: setup.gateway.key, maxRetries: 0 })
    const message = await bearer.messages.create({ model: 'mock-1', max_tokens: 10, messages: hi })
    expect(message.content[0]).toMatchObject({ type: 'text' })
    expect((await bearer.models.list()).data.length).toBeGreaterThan(0)
  })

  test('an unknown model is a 404 not_found_error', async () => {
    const error = await client.messages.create({ model: 'no-such-model', max_tokens: 10, messages: hi }).catch((caught) => caught)
    expect(error).toBeInstanceOf(Anthropic.NotFoundError)
    expect(error.type).toBe('not_found_error')
    expect(error.message).toContain('no-such-model')
  })

  test('a field out of range is a 400 invalid_request_error naming the field', async () => {
    // This SDK version no longer types sampling parameters; older clients still send them.
    const params = { model: 'mock-1', max_tokens: 10, temperature: 3, messages: hi } as Anthropic.MessageCreateParamsNonStreaming
    const error = await client.messages.create(params).catch((caught) => caught)
    expect(error).toBeInstanceOf(Anthropic.BadRequestError)
    expect(error.type).toBe('invalid_request_error')
    expect(error.message).toContain('temperature')
  })

  const badBodies: [string, Record<string, unknown>, string][] = [
    ['no model', { max_tokens: 10, messages: hi }, 'model'],
    ['no max_tokens', { model: 'mock-1', messages: hi }, 'max_tokens'],
    ['max_tokens zero', { model: 'mock-1', max_tokens: 0, messages: hi }, 'max_tokens'],
    ['no messages', { model: 'mock-1', max_tokens: 10 }, 'messages'],
    ['a tool role', { model: 'mock-1', max_tokens: 10, messages: [{ role: 'tool', content: 'x' }] }, 'messages[0].role'],
    [
      'a block without type',
      { model: 'mock-1', max_tokens: 10, messages: [{ role: 'user', content: [{ text: 'x' }] }] },
      'messages[0].content[0].type',
    ],
    [
      'a tool_result without id',
      { model: 'mock-1', max_tokens: 10, messages: [{ role: 'user', content: [{ type: 'tool_result', content: 'x' }] }] },
      'messages[0].content[0].tool_use_id',
    ],
    ['five stop sequences', { model: 'mock-1', max_tokens: 10, messages: hi, stop_sequences: ['a', 'b', 'c', 'd', 'e'] }, 'stop_sequences'],
    ['a tool without schema', { model: 'mock-1', max_tokens: 10, messages: hi, tools: [{ name: 't' }] }, 'tools[0].input_schema'],
    ['an unknown tool_choice', { model: 'mock-1', max_tokens: 10, messages: hi, tool_choice: { type: 'some' } }, 'tool_choice.type'],
    ['a bad thinking type', { model: 'mock-1', max_tokens: 10, messages: hi, thinking: { type: 'sometimes' } }, 'thinking.type'],
  ]
  for (const [name, body, field] of badBodies) {
    test(`400 for ${name}, naming '${field}'`, async () => {
      const response = await post('/v1/messages', body)
      expect(response.status).toBe(400)
      expect(response.body.type).toBe('error')
      expect(response.body.error.type).toBe('invalid_request_error')
      expect(response.body.error.message).toContain(`'${field}'`)
    })
  }

  test('malformed JSON is a 400, not a crash', async () => {
    const response = await post('/v1/messages', '{"model": ')
    expect(response.status).toBe(400)
    expect(response.body.error.type).toBe('invalid_request_error')
  })

  test("an unknown path under /v1/messages is an Anthropic 404; other paths keep OpenAI's shape", async () => {
    const unknown = await post('/v1/messages/batches/nope', {})
    expect(unknown.status).toBe(404)
    expect(unknown.body).toMatchObject({ type: 'error', error: { type: 'not_found_error' } })
    const openAi = await fetch(`${setup.gateway.url}/v1/nothing`, { headers: { authorization: `Bearer ${setup.gateway.key}` } })
    expect(((await openAi.json()) as any).error.type).toBe('not_found_error')
  })

  test('an empty balance is a billing_error', async () => {
    const account = await setup.gateway.createAccount('empty', '0')
    const key = await setup.gateway.createKey({ accountId: account.id })
    const broke = new Anthropic({ baseURL: setup.gateway.url, apiKey: key.secret, maxRetries: 0 })
    const error = await broke.messages.create({ model: 'mock-1', max_tokens: 10, messages: hi }).catch((caught) => caught)
    expect(error).toBeInstanceOf(Anthropic.APIError)
    expect(error.type).toBe('billing_error')
  })

  for (const path of ['pass', 'ir']) {
    test(`an overloaded Anthropic upstream (${path}) is an overloaded_error, nothing billed`, async () => {
      const before = await setup.gateway.settled()
      const error = await client.messages
        .create({ model: `claude-${path}-overloaded`, max_tokens: 10, messages: hi })
        .catch((caught) => caught)
      expect(error).toBeInstanceOf(Anthropic.APIError)
      expect(error.type).toBe('overloaded_error')
      expect((await setup.gateway.settled()).balance).toBe(before.balance)
    })

    test(`an upstream failing mid-stream (${path}) ends the stream with an error event the SDK throws, and the text sent is paid for`, async () => {
      const before = await setup.gateway.settled()
      const stream = client.messages.stream({ model: `claude-${path}-midstream`, max_tokens: 10, messages: hi })
      let text = ''
      stream.on('text', (delta) => {
        text += delta
      })
      const error = await stream.finalMessage().catch((caught) => caught)
      expect(error).toBeInstanceOf(Anthropic.APIError)
      expect(error.type).toBe('overloaded_error')
      expect(text).toBe('Hello')
      // The bill is settled as the stream ends, just after the client read the error event.
      let after = await setup.gateway.settled()
      for (let tries = 0; after.balance === before.balance && tries < 50; tries++)
        after = (await Bun.sleep(20), await setup.gateway.settled())
      expect(after.balance).toBeLessThan(before.balance)
      expect(after.reserved).toBe(0)
    })
  }
})

describe('count_tokens, models and the root', () => {
  test('count_tokens estimates the prompt, growing with it, and knows unknown models', async () => {
    const small = await client.messages.countTokens({ model: 'claude-pass', messages: hi })
    const large = await client.messages.countTokens({
      model: 'claude-pass',
      system: 'You are a careful assistant.',
      messages: [{ role: 'user', content: 'hi '.repeat(200) }],
      tools: [{ name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }],
    })
    expect(small.input_tokens).toBeGreaterThan(0)
    expect(large.input_tokens).toBeGreaterThan(small.input_tokens + 150)
    const beta = await post('/v1/messages/count_tokens?beta=true', { model: 'mock-1', messages: hi })
    expect(beta.body).toEqual({ input_tokens: small.input_tokens })
    const error = await client.messages.countTokens({ model: 'no-such-model', messages: hi }).catch((caught) => caught)
    expect(error).toBeInstanceOf(Anthropic.NotFoundError)
  })

  test("models.list answers in Anthropic's shape and pages; the OpenAI SDK still gets OpenAI's", async () => {
    const all: string[] = []
    for await (const model of client.models.list({ limit: 3 })) {
      expect(model).toMatchObject({ type: 'model', display_name: model.id })
      expect(Date.parse(model.created_at)).toBeGreaterThan(0)
      all.push(model.id)
    }
    expect(all).toEqual(setup.gateway.gateway.services.config.models.map((model) => model.id))
    const page = await client.models.list({ limit: 2 })
    expect(page.has_more).toBe(true)
    expect(page.last_id).toBe(all[1]!)
    const openAi = new OpenAI({ baseURL: setup.gateway.baseUrl, apiKey: setup.gateway.key })
    expect((await openAi.models.list()).data[0]).toMatchObject({ object: 'model', id: all[0] })
  })

  test('models.list shows only what the key may use; models.retrieve 404s the rest', async () => {
    const limited = await setup.gateway.createKey({ models: ['claude-pass'] })
    const scoped = new Anthropic({ baseURL: setup.gateway.url, apiKey: limited.secret, maxRetries: 0 })
    expect((await scoped.models.list()).data.map((model) => model.id)).toEqual(['claude-pass'])
    expect(await scoped.models.retrieve('claude-pass')).toMatchObject({ type: 'model', id: 'claude-pass' })
    const missing = await scoped.models.retrieve('nope').catch((caught) => caught)
    expect(missing).toBeInstanceOf(Anthropic.NotFoundError)
    const garbled = await fetch(`${setup.gateway.url}/v1/models/%E0%A4%A`, {
      headers: { 'x-api-key': limited.secret, 'anthropic-version': '2023-06-01' },
    })
    expect(garbled.status).toBe(400)
  })

  test('HEAD / answers 200 (Claude Code checks it)', async () => {
    expect((await fetch(setup.gateway.url, { method: 'HEAD' })).status).toBe(200)
  })
})
