import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import OpenAI from 'openai'
import { startGeminiUpstream } from './support/gemini-upstream.ts'
import { startTestGateway, type TestGateway } from './support/gateway.ts'
import type { TestUpstream } from './support/upstream.ts'

const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Weather for a city',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' }, unit: { type: 'string' } },
      required: ['city'],
      additionalProperties: false,
    },
    strict: true,
  },
}

let upstream: TestUpstream
let gateway: TestGateway
let client: OpenAI

beforeAll(async () => {
  upstream = startGeminiUpstream()
  gateway = await startTestGateway({
    config: {
      providers: [{ name: 'gemini', type: 'gemini', base_url: upstream.url, api_key: 'gemini-secret' }],
      models: [
        {
          id: 'flash',
          provider: 'gemini',
          upstream_model: 'gemini-2.5-flash',
          price: { input: 1.25, output: 10, cached_input: 0.125 },
          max_output_tokens: 256,
        },
        { id: 'broken', provider: 'gemini', upstream_model: 'gemini-broken', price: { input: 1, output: 1 } },
      ],
    },
  })
  client = new OpenAI({ baseURL: gateway.baseUrl, apiKey: gateway.key, maxRetries: 0 })
})

afterAll(async () => {
  await gateway.stop()
  await upstream.stop()
})

describe('OpenAI SDK → Gemini upstream (translated through the IR)', () => {
  test('a plain answer, with Gemini usage in OpenAI fields and billed to the unit', async () => {
    const before = await gateway.settled()
    const completion = await client.chat.completions.create({
      model: 'flash',
      messages: [
        { role: 'system', content: 'Be kind.' },
        { role: 'user', content: 'hi' },
      ],
    })
    expect(completion.choices[0]!.message.content).toBe('Hello from gemini upstream')
    expect(completion.choices[0]!.finish_reason).toBe('stop')
    expect(completion.usage).toMatchObject({
      prompt_tokens: 11,
      completion_tokens: 7,
      total_tokens: 18,
      prompt_tokens_details: { cached_tokens: 3 },
      completion_tokens_details: { reasoning_tokens: 2 },
    })
    const sent = upstream.requests.at(-1)!
    expect(sent.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent')
    expect(sent.headers['x-goog-api-key']).toBe('gemini-secret')
    expect(sent.body.systemInstruction).toEqual({ parts: [{ text: 'Be kind.' }] })
    expect(sent.body.generationConfig.maxOutputTokens).toBe(256)
    const after = await gateway.settled()
    expect(before.balance - after.balance).toBe(80_375)
  })

  test('a streamed tool call comes out as OpenAI tool-call deltas the .stream() helper reassembles', async () => {
    const stream = client.chat.completions.stream({
      model: 'flash',
      messages: [{ role: 'user', content: 'weather?' }],
      tools: [weatherTool],
      tool_choice: 'required',
    })
    const final = await stream.finalChatCompletion()
    const call = final.choices[0]!.message.tool_calls![0]!
    if (call.type !== 'function') throw new Error('unexpected tool call type')
    expect(call.function.name).toBe('get_weather')
    expect(JSON.parse(call.function.arguments)).toEqual({ city: 'Paris', unit: 'celsius' })
    expect(call.id).toMatch(/^call_/)
    expect(final.choices[0]!.finish_reason).toBe('tool_calls')
    const sent = upstream.requests.at(-1)!
    expect(sent.path).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse')
    expect(sent.body.toolConfig).toEqual({ functionCallingConfig: { mode: 'ANY' } })
    // Gemini refuses `strict` and `$schema` in schemas; the JSON-Schema field keeps additionalProperties.
    expect(sent.body.tools[0].functionDeclarations[0]).toEqual({
      name: 'get_weather',
      description: 'Weather for a city',
      parametersJsonSchema: weatherTool.function.parameters,
    })
  })

  test('a tool result goes back as a named functionResponse after the model turn that called it', async () => {
    const completion = await client.chat.completions.create({
      model: 'flash',
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
    const contents = upstream.requests.at(-1)!.body.contents
    expect(contents.map((content: { role: string }) => content.role)).toEqual(['user', 'model', 'user'])
    // An OpenAI client cannot carry Gemini's signature; the documented placeholder stands in for it.
    expect(contents[1].parts).toEqual([
      { functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'skip_thought_signature_validator' },
    ])
    expect(contents[2].parts).toEqual([{ functionResponse: { name: 'get_weather', response: { output: 'sunny, 21C' } } }])
  })

  test('a reasoning effort becomes a thinking budget; a streamed answer carries Gemini usage', async () => {
    const stream = await client.chat.completions.create({
      model: 'flash',
      stream: true,
      stream_options: { include_usage: true },
      reasoning_effort: 'high',
      messages: [{ role: 'user', content: 'hi' }],
    })
    let text = ''
    let usage: OpenAI.CompletionUsage | undefined
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? ''
      if (chunk.usage) usage = chunk.usage
    }
    expect(text).toBe('Hello from gemini upstream')
    expect(usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 7, prompt_tokens_details: { cached_tokens: 3 } })
    expect(upstream.requests.at(-1)!.body.generationConfig.thinkingConfig).toEqual({ thinkingBudget: 24576 })
  })

  test('a Gemini error event mid-stream reaches the OpenAI client as an error', async () => {
    const stream = await client.chat.completions.create({ model: 'broken', stream: true, messages: [{ role: 'user', content: 'hi' }] })
    let text = ''
    const error = await (async () => {
      try {
        for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? ''
      } catch (failure) {
        return failure as Error
      }
    })()
    expect(text).toBe('Hello')
    expect(error?.message).toContain('overloaded')
  })
})
