import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import OpenAI from 'openai'
import { startTestGateway, type TestGateway } from './support/gateway.ts'
import { chatChunks, startOpenAiUpstream } from './support/openai-upstream.ts'
import { sseResponse, startUpstream, type TestUpstream } from './support/upstream.ts'

const weatherTool = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'Weather for a city',
  strict: false,
  parameters: { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string' } }, required: ['city'] },
}

let upstream: TestUpstream
let brokenUpstream: TestUpstream
let gateway: TestGateway
let client: OpenAI

beforeAll(async () => {
  upstream = startOpenAiUpstream()
  // Sends the start of an answer, then hangs up before finishing it.
  brokenUpstream = startUpstream((request) => sseResponse(chatChunks(request).slice(0, 2)))
  gateway = await startTestGateway({
    config: {
      providers: [
        { name: 'up', type: 'openai', base_url: `${upstream.url}/v1`, api_key: 'upstream-secret' },
        { name: 'broken', type: 'openai', base_url: `${brokenUpstream.url}/v1`, api_key: 'upstream-secret' },
        { name: 'mock', type: 'mock' },
      ],
      models: [
        {
          id: 'gpt-test',
          provider: 'up',
          upstream_model: 'real-model',
          price: { input: 1.25, output: 10, cached_input: 0.125 },
          max_output_tokens: 256,
        },
        { id: 'gpt-broken', provider: 'broken', upstream_model: 'real-model', price: { input: 1, output: 1 } },
        { id: 'mock-1', provider: 'mock', price: { input: 1, output: 2 } },
      ],
    },
  })
  client = new OpenAI({ baseURL: gateway.baseUrl, apiKey: gateway.key, maxRetries: 0 })
})

afterAll(async () => {
  await gateway.stop()
  await upstream.stop()
  await brokenUpstream.stop()
})

const cases = [
  { model: 'mock-1', greeting: 'Hello from the Tollgate mock provider, you said: hi there', toolSaid: 'the tool answered sunny, 21C' },
  { model: 'gpt-test', greeting: 'Hello from upstream', toolSaid: 'The tool said sunny, 21C' },
]

for (const { model, greeting, toolSaid } of cases) {
  describe(`OpenAI SDK responses → ${model}`, () => {
    test('responses.create answers with a message item and usage', async () => {
      const response = await client.responses.create({ model, input: 'hi there', instructions: 'Be friendly.' })
      expect(response.output_text).toBe(greeting)
      expect(response).toMatchObject({ object: 'response', status: 'completed', model, instructions: 'Be friendly.' })
      expect(response.id).toMatch(/^resp_/)
      expect(response.output).toEqual([
        {
          id: expect.stringMatching(/^msg_/),
          type: 'message',
          status: 'completed',
          role: 'assistant',
          content: [{ type: 'output_text', text: greeting, annotations: [], logprobs: [] }],
        },
      ])
      expect(response.usage!.input_tokens).toBeGreaterThan(0)
      expect(response.usage!.total_tokens).toBe(response.usage!.input_tokens + response.usage!.output_tokens)
    })

    test('stream: true gives named events numbered in order, with usage in response.completed', async () => {
      const stream = await client.responses.create({ model, input: 'hi there', stream: true })
      const events: OpenAI.Responses.ResponseStreamEvent[] = []
      for await (const event of stream) events.push(event)
      expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index))
      expect(events.slice(0, 4).map((event) => event.type)).toEqual([
        'response.created',
        'response.in_progress',
        'response.output_item.added',
        'response.content_part.added',
      ])
      const text = events.flatMap((event) => (event.type === 'response.output_text.delta' ? [event.delta] : [])).join('')
      expect(text).toBe(greeting)
      const last = events.at(-1)!
      if (last.type !== 'response.completed') throw new Error(`stream ended with ${last.type}`)
      expect(last.response.usage!.output_tokens).toBeGreaterThan(0)
      expect(last.response.output[0]).toMatchObject({ type: 'message', content: [{ text: greeting }] })
    })

    test('the responses.stream() helper assembles the final response', async () => {
      const final = await client.responses.stream({ model, input: 'hi there' }).finalResponse()
      expect(final.output_text).toBe(greeting)
      expect(final.status).toBe('completed')
    })

    test('function calling round trip: a function_call, then its function_call_output is understood', async () => {
      const first = await client.responses
        .stream({ model, input: [{ role: 'user', content: 'Use get_weather: weather in Paris?' }], tools: [weatherTool] })
        .finalResponse()
      const call = first.output.find((item) => item.type === 'function_call')
      if (call?.type !== 'function_call') throw new Error('expected a function call')
      expect(call.name).toBe('get_weather')
      expect(JSON.parse(call.arguments).city).toBe('Paris')
      const second = await client.responses.create({
        model,
        tools: [weatherTool],
        input: [
          { role: 'user', content: 'weather in Paris?' },
          ...(first.output as OpenAI.Responses.ResponseInputItem[]),
          { type: 'function_call_output', call_id: call.call_id, output: 'sunny, 21C' },
        ],
      })
      expect(second.output_text).toContain(toolSaid)
    })
  })
}

describe('Responses through an OpenAI-compatible upstream', () => {
  test('tools and tool results reach the upstream as Chat Completions', async () => {
    await client.responses.create({
      model: 'gpt-test',
      tools: [weatherTool],
      instructions: 'Use tools.',
      input: [
        { role: 'user', content: 'weather?' },
        { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'sunny, 21C' },
      ],
    })
    const sent = upstream.requests.at(-1)!.body
    expect(sent.model).toBe('real-model')
    expect(sent.messages).toEqual([
      { role: 'system', content: 'Use tools.' },
      { role: 'user', content: 'weather?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'sunny, 21C' },
    ])
    expect(sent.tools[0]).toEqual({
      type: 'function',
      function: { name: 'get_weather', description: 'Weather for a city', parameters: weatherTool.parameters, strict: false },
    })
  })

  for (const stream of [false, true]) {
    test(`billing (${stream ? 'streamed' : 'JSON'}): the balance moves by exactly the usage reported, cached tokens at their price`, async () => {
      const before = await gateway.settled()
      let usage: OpenAI.Responses.ResponseUsage | null | undefined
      if (stream) usage = (await client.responses.stream({ model: 'gpt-test', input: 'hi' }).finalResponse()).usage
      else usage = (await client.responses.create({ model: 'gpt-test', input: 'hi' })).usage
      expect(usage).toEqual({
        input_tokens: 11,
        input_tokens_details: { cache_write_tokens: 0, cached_tokens: 3 },
        output_tokens: 7,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 18,
      })
      const after = await gateway.settled()
      // 8 uncached input at $1.25/M + 3 cached at $0.125/M + 7 output at $10/M = 10000 + 375 + 70000 nano-dollars
      expect(before.balance - after.balance).toBe(80_375)
    })
  }

  test('a stream the upstream cuts short ends with an error event, then response.failed', async () => {
    const response = await fetch(`${gateway.baseUrl}/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-broken', input: 'hi', stream: true }),
    })
    const text = await response.text()
    const names = [...text.matchAll(/^event: (.+)$/gm)].map((match) => match[1])
    expect(names.slice(-2)).toEqual(['error', 'response.failed'])
    expect(text).toContain('"status":"failed"')
    await expect(client.responses.stream({ model: 'gpt-broken', input: 'hi' }).finalResponse()).rejects.toThrow(
      'Upstream stream ended before the answer was complete',
    )
  })
})

test('a client that leaves mid-stream makes the gateway hang up on the upstream', async () => {
  const slow = startUpstream((request) => sseResponse(chatChunks(request), 200))
  const local = await startTestGateway({
    config: {
      providers: [{ name: 'slow', type: 'openai', base_url: `${slow.url}/v1` }],
      models: [{ id: 'slow', provider: 'slow', price: { input: 1, output: 1 } }],
    },
  })
  try {
    const leaving = new AbortController()
    const response = await fetch(`${local.baseUrl}/responses`, {
      method: 'POST',
      signal: leaving.signal,
      headers: { authorization: `Bearer ${local.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'slow', input: 'hi', stream: true }),
    })
    const reader = response.body!.getReader()
    let seen = ''
    while (!seen.includes('response.output_text.delta')) seen += new TextDecoder().decode((await reader.read()).value)
    leaving.abort()
    while (slow.aborted === 0) await Bun.sleep(10)
    expect(slow.aborted).toBe(1)
  } finally {
    await local.stop()
    await slow.stop()
  }
})

describe('Responses errors, in OpenAI shape', () => {
  test('previous_response_id is refused: the gateway is stateless', async () => {
    const error = await client.responses
      .create({ model: 'mock-1', input: 'and then?', previous_response_id: 'resp_123' })
      .catch((caught) => caught)
    expect(error).toBeInstanceOf(OpenAI.BadRequestError)
    expect(error.error).toMatchObject({ type: 'invalid_request_error', param: 'previous_response_id', code: 'stateless_gateway' })
    expect(error.message).toContain('stateless')
  })

  test('a stored response cannot be retrieved', async () => {
    expect(await client.responses.retrieve('resp_123').catch((caught) => caught)).toBeInstanceOf(OpenAI.NotFoundError)
  })

  test('a wrong key is a 401', async () => {
    const stranger = new OpenAI({ baseURL: gateway.baseUrl, apiKey: 'tg_not_a_key', maxRetries: 0 })
    expect(await stranger.responses.create({ model: 'mock-1', input: 'hi' }).catch((caught) => caught)).toBeInstanceOf(
      OpenAI.AuthenticationError,
    )
  })

  test('an unknown model is a 404 naming the model', async () => {
    const error = await client.responses.create({ model: 'no-such-model', input: 'hi', stream: true }).catch((caught) => caught)
    expect(error).toBeInstanceOf(OpenAI.NotFoundError)
    expect(error.error).toMatchObject({ param: 'model', code: 'model_not_found' })
  })

  test('a bad field is a 400 naming it', async () => {
    const error = await client.responses.create({ model: 'mock-1', input: 'hi', temperature: 5 }).catch((caught) => caught)
    expect(error).toBeInstanceOf(OpenAI.BadRequestError)
    expect(error.error).toMatchObject({ type: 'invalid_request_error', param: 'temperature' })
  })
})
