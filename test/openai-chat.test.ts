import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import OpenAI from 'openai'
import { startOpenAiUpstream } from './support/openai-upstream.ts'
import { startTestGateway, type TestGateway } from './support/gateway.ts'
import type { TestUpstream } from './support/upstream.ts'

const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string' } }, required: ['city'] },
  },
}

let upstream: TestUpstream
let gateway: TestGateway
let client: OpenAI

beforeAll(async () => {
  upstream = startOpenAiUpstream()
  gateway = await startTestGateway({
    config: {
      providers: [
        { name: 'up', type: 'openai', base_url: `${upstream.url}/v1`, api_key: 'upstream-secret' },
        { name: 'up-translated', type: 'openai', base_url: `${upstream.url}/v1`, api_key: 'upstream-secret', passthrough: false },
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
        {
          id: 'gpt-ir',
          provider: 'up-translated',
          upstream_model: 'real-model',
          price: { input: 1.25, output: 10, cached_input: 0.125 },
          max_output_tokens: 256,
        },
        { id: 'mock-1', provider: 'mock', price: { input: 1, output: 2 } },
      ],
    },
  })
  client = new OpenAI({ baseURL: gateway.baseUrl, apiKey: gateway.key, maxRetries: 0 })
})

afterAll(async () => {
  await gateway.stop()
  await upstream.stop()
})

// Both paths to an OpenAI-compatible upstream must look the same to the client: bytes forwarded and IR-translated.
for (const model of ['gpt-test', 'gpt-ir']) {
  describe(`OpenAI SDK → ${model}`, () => {
    test('answers a plain request and reports usage', async () => {
      const completion = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] })
      expect(completion.choices[0]!.message.content).toBe('Hello from upstream')
      expect(completion.choices[0]!.finish_reason).toBe('stop')
      expect(completion.usage?.prompt_tokens).toBe(11)
      expect(completion.usage?.completion_tokens).toBe(7)
      const sent = upstream.requests.at(-1)!
      expect(sent.body.model).toBe('real-model')
      expect(sent.headers.authorization).toBe('Bearer upstream-secret')
      // The hold was sized for at most max_output_tokens, so the upstream must be held to it too.
      expect(sent.body.max_completion_tokens ?? sent.body.max_tokens).toBe(256)
    })

    test('streams through the SDK .stream() helper, with tool-call deltas reassembled', async () => {
      const stream = client.chat.completions.stream({ model, messages: [{ role: 'user', content: 'weather?' }], tools: [weatherTool] })
      const final = await stream.finalChatCompletion()
      const call = final.choices[0]!.message.tool_calls![0]!
      expect(call.type).toBe('function')
      if (call.type !== 'function') throw new Error('unexpected tool call type')
      expect(call.function.name).toBe('get_weather')
      expect(JSON.parse(call.function.arguments)).toEqual({ city: 'Paris', unit: 'celsius' })
      expect(call.id).toBe('call_upstream_1')
      expect(final.choices[0]!.finish_reason).toBe('tool_calls')
    })

    test('sends a tool result back upstream', async () => {
      const completion = await client.chat.completions.create({
        model,
        tools: [weatherTool],
        messages: [
          { role: 'user', content: 'weather?' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
          },
          { role: 'tool', tool_call_id: 'call_1', content: 'sunny, 21C' },
        ],
      })
      expect(completion.choices[0]!.message.content).toBe('The tool said sunny, 21C')
      const sent = upstream.requests.at(-1)!.body
      expect(sent.messages[2]).toMatchObject({ role: 'tool', tool_call_id: 'call_1', content: 'sunny, 21C' })
      expect(sent.messages[1].tool_calls[0].function.name).toBe('get_weather')
    })

    test('hides the usage chunk from a client that did not ask, yet bills from it', async () => {
      const before = await gateway.settled()
      const response = await fetch(`${gateway.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gateway.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
      })
      const text = await response.text()
      expect(text).not.toContain('"usage"')
      expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true)
      const ids = [...text.matchAll(/"id":"([^"]+)"/g)].map((match) => match[1])
      expect(new Set(ids).size).toBe(1)
      expect(upstream.requests.at(-1)!.body.stream_options).toEqual({ include_usage: true })
      const after = await gateway.settled()
      // 8 uncached input at $1.25/M + 3 cached at $0.125/M + 7 output at $10/M = 10000 + 375 + 70000 nano-dollars
      expect(before.balance - after.balance).toBe(80_375)
    })

    test('passes include_usage through to a client that asked', async () => {
      const stream = await client.chat.completions.create({
        model,
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: 'user', content: 'hi' }],
      })
      let usage: OpenAI.CompletionUsage | undefined
      let text = ''
      for await (const chunk of stream) {
        if (chunk.usage) usage = chunk.usage
        text += chunk.choices[0]?.delta?.content ?? ''
      }
      expect(text).toBe('Hello from upstream')
      expect(usage?.prompt_tokens).toBe(11)
      expect(usage?.prompt_tokens_details?.cached_tokens).toBe(3)
    })
  })
}

describe('OpenAI SDK → mock provider', () => {
  test('streams an answer with the same id on every chunk', async () => {
    const stream = await client.chat.completions.create({
      model: 'mock-1',
      stream: true,
      messages: [{ role: 'user', content: 'hello gateway' }],
    })
    const ids = new Set<string>()
    let text = ''
    for await (const chunk of stream) {
      ids.add(chunk.id)
      text += chunk.choices[0]?.delta?.content ?? ''
    }
    expect(text).toContain('you said: hello gateway')
    expect(ids.size).toBe(1)
  })

  test('lists exactly the models the key may use', async () => {
    const all = await client.models.list()
    expect(all.data.map((model) => model.id)).toEqual(['gpt-test', 'gpt-ir', 'mock-1'])
    const limited = await gateway.createKey({ models: ['mock-1'] })
    const limitedClient = new OpenAI({ baseURL: gateway.baseUrl, apiKey: limited.secret })
    expect((await limitedClient.models.list()).data.map((model) => model.id)).toEqual(['mock-1'])
  })
})
