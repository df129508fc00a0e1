import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import OpenAI from 'openai'
import { startAnthropicSetup, type AnthropicSetup } from './support/anthropic-setup.ts'
import { upstreamKey } from './support/anthropic-upstream.ts'

const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
}

let setup: AnthropicSetup
let client: OpenAI

beforeAll(async () => {
  setup = await startAnthropicSetup()
  client = new OpenAI({ baseURL: setup.gateway.baseUrl, apiKey: setup.gateway.key, maxRetries: 0 })
})

afterAll(() => setup.stop())

// Both Anthropic routes: an OpenAI client never takes the passthrough path to an Anthropic upstream.
for (const model of ['claude-pass', 'claude-ir']) {
  describe(`OpenAI SDK → Anthropic upstream (${model})`, () => {
    test("a plain answer, with system prompt moved to Anthropic's top level and usage mapped back", async () => {
      const before = await setup.gateway.settled()
      const completion = await client.chat.completions.create({
        model,
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'hi' },
        ],
      })
      expect(completion.choices[0]!.message.content).toBe('Hello from upstream')
      expect(completion.choices[0]!.finish_reason).toBe('stop')
      // Anthropic's 5 input + 4 cache reads + 2 cache writes are OpenAI's 11 prompt tokens, 4 of them cached.
      expect(completion.usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 7, prompt_tokens_details: { cached_tokens: 4 } })
      const sent = setup.anthropicUpstream.requests.at(-1)!
      expect(sent.path).toBe('/v1/messages')
      expect(sent.headers['x-api-key']).toBe(upstreamKey)
      expect(sent.headers['anthropic-version']).toBe('2023-06-01')
      expect(sent.body.system).toEqual([{ type: 'text', text: 'Be brief.' }])
      expect(sent.body.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'hi' }] }])
      expect(sent.body.max_tokens).toBe(2048)
      expect(before.balance - (await setup.gateway.settled()).balance).toBe(5 * 3000 + 4 * 300 + 2 * 3750 + 7 * 15000)
    })

    test('a streamed tool call arrives with its complete arguments through the SDK .stream() helper', async () => {
      const final = await client.chat.completions
        .stream({ model, messages: [{ role: 'user', content: 'weather?' }], tools: [weatherTool] })
        .finalChatCompletion()
      const message = final.choices[0]!.message
      expect(message.content).toBe('Let me check.')
      const call = message.tool_calls![0]!
      if (call.type !== 'function') throw new Error('expected a function call')
      expect(call.id).toBe('toolu_upstream_1')
      expect(JSON.parse(call.function.arguments)).toEqual({ city: 'Paris', unit: 'celsius' })
      expect(final.choices[0]!.finish_reason).toBe('tool_calls')
    })

    test('tool results go back as one user turn of tool_result blocks', async () => {
      const completion = await client.chat.completions.create({
        model,
        tools: [weatherTool],
        messages: [
          { role: 'user', content: 'weather in Paris and Rome?' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
              { id: 'call_2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
          { role: 'tool', tool_call_id: 'call_2', content: 'rainy' },
        ],
      })
      expect(completion.choices[0]!.message.content).toBe('The tool said sunny')
      const sent = setup.anthropicUpstream.requests.at(-1)!.body
      expect(sent.messages).toHaveLength(3)
      expect(sent.messages[1].content.map((block: any) => block.input)).toEqual([{ city: 'Paris' }, { city: 'Rome' }])
      expect(sent.messages[2]).toEqual({
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_1', content: 'sunny' },
          { type: 'tool_result', tool_use_id: 'call_2', content: 'rainy' },
        ],
      })
    })

    test('a mid-stream upstream error reaches the OpenAI client as an error, not a silent end', async () => {
      const stream = await client.chat.completions.create({
        model: `${model}-midstream`,
        stream: true,
        messages: [{ role: 'user', content: 'hi' }],
      })
      const error = await (async () => {
        for await (const _ of stream);
      })().catch((caught) => caught)
      expect(error).toBeInstanceOf(OpenAI.APIError)
      expect(error.message).toContain('Overloaded')
    })
  })
}
