import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { ApiError, GoogleGenAI, type Content, type GenerateContentResponse } from '@google/genai'
import { startGeminiUpstream, upstreamSignature } from './support/gemini-upstream.ts'
import { startOpenAiUpstream } from './support/openai-upstream.ts'
import { startTestGateway, type TestGateway } from './support/gateway.ts'
import type { TestUpstream } from './support/upstream.ts'

const price = { input: 1.25, output: 10, cached_input: 0.125 }
const weather = {
  functionDeclarations: [
    {
      name: 'get_weather',
      description: 'Weather for a city',
      parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string' } }, required: ['city'] },
    },
  ],
}

let gemini: TestUpstream
let openai: TestUpstream
let gateway: TestGateway
let ai: GoogleGenAI

beforeAll(async () => {
  gemini = startGeminiUpstream()
  openai = startOpenAiUpstream()
  gateway = await startTestGateway({
    config: {
      providers: [
        { name: 'mock', type: 'mock' },
        { name: 'openai-up', type: 'openai', base_url: `${openai.url}/v1`, api_key: 'openai-secret' },
        { name: 'gemini-up', type: 'gemini', base_url: gemini.url, api_key: 'gemini-secret' },
        { name: 'gemini-ir', type: 'gemini', base_url: gemini.url, api_key: 'gemini-secret', passthrough: false },
      ],
      models: [
        { id: 'gemini-mock', provider: 'mock', price, max_output_tokens: 512 },
        { id: 'gemini-openai', provider: 'openai-up', upstream_model: 'real-model', price, max_output_tokens: 512 },
        {
          id: 'gemini-pass',
          provider: 'gemini-up',
          upstream_model: 'gemini-2.5-flash',
          price,
          max_output_tokens: 512,
          context_window: 1048576,
        },
        { id: 'gemini-ir', provider: 'gemini-ir', upstream_model: 'gemini-2.5-flash', price, max_output_tokens: 512 },
        { id: 'gemini-broken', provider: 'gemini-up', upstream_model: 'gemini-broken', price },
        { id: 'gemini-broken-ir', provider: 'gemini-ir', upstream_model: 'gemini-broken', price },
        { id: 'gemini-missing', provider: 'gemini-up', upstream_model: 'gemini-missing', price },
      ],
    },
  })
  ai = new GoogleGenAI({ apiKey: gateway.key, httpOptions: { baseUrl: gateway.url } })
})

afterAll(async () => {
  await gateway.stop()
  await gemini.stop()
  await openai.stop()
})

/** The SDK's error as the client sees it: HTTP status and the parsed Gemini error body. */
async function failure(
  call: () => Promise<unknown>,
): Promise<{ status: number; error: { code: number; message: string; status: string } }> {
  try {
    await call()
  } catch (error) {
    if (!(error instanceof ApiError)) throw error
    const json = error.message.slice(error.message.indexOf('{'))
    return { status: error.status, error: JSON.parse(json).error }
  }
  throw new Error('expected the call to fail')
}

const greetings: Record<string, string> = {
  'gemini-mock': 'Hello from the Tollgate mock provider, you said: hello gateway',
  'gemini-openai': 'Hello from upstream',
  'gemini-pass': 'Hello from gemini upstream',
  'gemini-ir': 'Hello from gemini upstream',
}
const toolAnswers: Record<string, string> = {
  'gemini-mock': 'Hello from the Tollgate mock provider, the tool answered sunny, 21C',
  'gemini-openai': 'The tool said sunny, 21C',
  'gemini-pass': 'The tool said sunny, 21C',
  'gemini-ir': 'The tool said sunny, 21C',
}

for (const model of Object.keys(greetings)) {
  describe(`@google/genai → ${model}`, () => {
    test('generateContent answers with text, STOP and usage', async () => {
      const response = await ai.models.generateContent({ model, contents: 'hello gateway', config: { systemInstruction: 'Be kind.' } })
      expect(response.text).toBe(greetings[model]!)
      expect(response.candidates?.[0]?.finishReason as string).toBe('STOP')
      expect(response.usageMetadata?.promptTokenCount).toBeGreaterThan(0)
      expect(response.usageMetadata?.totalTokenCount).toBeGreaterThan(response.usageMetadata!.promptTokenCount!)
    })

    test('generateContentStream streams the same text, finishing with usage', async () => {
      const chunks: GenerateContentResponse[] = []
      for await (const chunk of await ai.models.generateContentStream({ model, contents: 'hello gateway' })) chunks.push(chunk)
      expect(chunks.length).toBeGreaterThan(1)
      expect(chunks.map((chunk) => chunk.text ?? '').join('')).toBe(greetings[model]!)
      expect(chunks.at(-1)!.candidates?.[0]?.finishReason as string).toBe('STOP')
      expect(chunks.at(-1)!.usageMetadata?.candidatesTokenCount).toBeGreaterThan(0)
    })

    test('function calling round trip: functionCall out, functionResponse back', async () => {
      const question: Content = { role: 'user', parts: [{ text: 'Use get_weather: weather in Paris?' }] }
      const first = await ai.models.generateContent({ model, contents: [question], config: { tools: [weather] } })
      const call = first.functionCalls![0]!
      expect(call.name).toBe('get_weather')
      expect(call.args?.city).toBe('Paris')
      const streamed: GenerateContentResponse[] = []
      for await (const chunk of await ai.models.generateContentStream({ model, contents: [question], config: { tools: [weather] } }))
        streamed.push(chunk)
      const streamedCalls = streamed.flatMap((chunk) => chunk.functionCalls ?? [])
      expect(streamedCalls).toHaveLength(1)
      expect(streamedCalls[0]!.args).toEqual(call.args!)
      const answer = await ai.models.generateContent({
        model,
        config: { tools: [weather] },
        contents: [
          question,
          first.candidates![0]!.content!,
          { role: 'user', parts: [{ functionResponse: { id: call.id, name: 'get_weather', response: { output: 'sunny, 21C' } } }] },
        ],
      })
      expect(answer.text).toBe(toolAnswers[model]!)
    })

    test('countTokens estimates the prompt', async () => {
      const short = await ai.models.countTokens({ model, contents: 'hello' })
      const long = await ai.models.countTokens({ model, contents: 'hello there, this prompt has quite a few more words in it' })
      expect(short.totalTokens).toBeGreaterThan(0)
      expect(long.totalTokens).toBeGreaterThan(short.totalTokens!)
    })
  })
}

describe('what the upstreams receive', () => {
  test('passthrough forwards the client body, capped, with the gateway credential and the upstream model', async () => {
    await ai.models.generateContent({ model: 'gemini-pass', contents: 'hi', config: { maxOutputTokens: 4000, temperature: 0.3 } })
    const sent = gemini.requests.at(-1)!
    expect(sent.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent')
    expect(sent.headers['x-goog-api-key']).toBe('gemini-secret')
    expect(sent.body.generationConfig).toEqual({ maxOutputTokens: 512, temperature: 0.3 })
  })

  test('the translated path pairs the result with its call and returns the thought signature Gemini issued', async () => {
    const question: Content = { role: 'user', parts: [{ text: 'weather?' }] }
    const first = await ai.models.generateContent({ model: 'gemini-ir', contents: [question], config: { tools: [weather] } })
    const part = first.candidates![0]!.content!.parts!.find((item) => item.functionCall)!
    expect(part.thoughtSignature).toBe(upstreamSignature)
    await ai.models.generateContent({
      model: 'gemini-ir',
      config: { tools: [weather] },
      contents: [
        question,
        first.candidates![0]!.content!,
        { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { output: 'rain' } } }] },
      ],
    })
    const sent = gemini.requests.at(-1)!.body
    expect(sent.contents[1].parts[0]).toEqual({
      functionCall: { name: 'get_weather', args: { city: 'Paris', unit: 'celsius' } },
      thoughtSignature: upstreamSignature,
    })
    expect(sent.contents[2].parts[0]).toEqual({ functionResponse: { name: 'get_weather', response: { output: 'rain' } } })
    expect(sent.tools[0].functionDeclarations[0].parametersJsonSchema.required).toEqual(['city'])
  })

  test('an OpenAI upstream gets the Gemini call id on both the call and its result', async () => {
    const question: Content = { role: 'user', parts: [{ text: 'weather?' }] }
    const first = await ai.models.generateContent({ model: 'gemini-openai', contents: [question], config: { tools: [weather] } })
    expect(first.functionCalls![0]!.id).toBe('call_upstream_1')
    await ai.models.generateContent({
      model: 'gemini-openai',
      config: { tools: [weather] },
      contents: [
        question,
        first.candidates![0]!.content!,
        { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { output: 'rain' } } }] },
      ],
    })
    const sent = openai.requests.at(-1)!.body
    expect(sent.messages[1].tool_calls[0].id).toBe('call_upstream_1')
    expect(sent.messages[2]).toEqual({ role: 'tool', tool_call_id: 'call_upstream_1', content: 'rain' })
  })
})

describe('models, keys and errors in Gemini shape', () => {
  test('models.list and models.get show exactly the models the key may use', async () => {
    const names: string[] = []
    for await (const model of await ai.models.list()) names.push(model.name!)
    expect(names).toEqual(
      ['gemini-mock', 'gemini-openai', 'gemini-pass', 'gemini-ir', 'gemini-broken', 'gemini-broken-ir', 'gemini-missing'].map(
        (id) => `models/${id}`,
      ),
    )
    const model = await ai.models.get({ model: 'gemini-pass' })
    expect(model).toMatchObject({ name: 'models/gemini-pass', displayName: 'gemini-pass', inputTokenLimit: 1048576, outputTokenLimit: 512 })
    const limited = await gateway.createKey({ models: ['gemini-mock'] })
    const narrow = new GoogleGenAI({ apiKey: limited.secret, httpOptions: { baseUrl: gateway.url, apiVersion: 'v1beta' } })
    const visible: string[] = []
    for await (const item of await narrow.models.list()) visible.push(item.name!)
    expect(visible).toEqual(['models/gemini-mock'])
    expect(await failure(() => narrow.models.get({ model: 'gemini-pass' }))).toMatchObject({
      status: 403,
      error: { status: 'PERMISSION_DENIED' },
    })
    expect(await failure(() => narrow.models.generateContent({ model: 'gemini-pass', contents: 'hi' }))).toMatchObject({
      status: 403,
      error: { code: 403 },
    })
  })

  test('a bad key is 401 UNAUTHENTICATED; an unknown model 404 NOT_FOUND; a bad field 400 naming it', async () => {
    const stranger = new GoogleGenAI({ apiKey: 'tg-not-a-key', httpOptions: { baseUrl: gateway.url } })
    expect(await failure(() => stranger.models.generateContent({ model: 'gemini-mock', contents: 'hi' }))).toMatchObject({
      status: 401,
      error: { code: 401, status: 'UNAUTHENTICATED' },
    })
    expect(await failure(() => ai.models.generateContent({ model: 'no-such-model', contents: 'hi' }))).toMatchObject({
      status: 404,
      error: { status: 'NOT_FOUND' },
    })
    expect(await failure(() => ai.models.get({ model: 'no-such-model' }))).toMatchObject({ status: 404, error: { status: 'NOT_FOUND' } })
    const bad = await failure(() => ai.models.generateContent({ model: 'gemini-mock', contents: 'hi', config: { temperature: 3 } }))
    expect(bad).toMatchObject({ status: 400, error: { code: 400, status: 'INVALID_ARGUMENT' } })
    expect(bad.error.message).toContain("'generationConfig.temperature'")
  })

  test('an upstream error reaches the client with its message, streamed or not', async () => {
    const whole = await failure(() => ai.models.generateContent({ model: 'gemini-missing', contents: 'hi' }))
    expect(whole).toMatchObject({ status: 400, error: { status: 'INVALID_ARGUMENT' } })
    expect(whole.error.message).toContain('models/custom-gemini-2.0-flash is not found')
    const streamed = await failure(async () => {
      for await (const _ of await ai.models.generateContentStream({ model: 'gemini-missing', contents: 'hi' })) {
      }
    })
    expect(streamed.status).toBe(400)
  })

  for (const model of ['gemini-broken', 'gemini-broken-ir']) {
    test(`a mid-stream failure ends ${model} with an error event the SDK throws`, async () => {
      const seen: string[] = []
      const result = await failure(async () => {
        for await (const chunk of await ai.models.generateContentStream({ model, contents: 'hi' })) seen.push(chunk.text ?? '')
      })
      expect(seen.join('')).toBe('Hello')
      expect(result).toMatchObject({ status: 503, error: { code: 503, status: 'UNAVAILABLE' } })
    })
  }

  test('unknown paths and methods under the Gemini API answer in Gemini shape', async () => {
    for (const [method, path] of [
      ['GET', '/v1beta/files'],
      ['POST', '/v1beta/models/gemini-mock:predict'],
      ['POST', '/v1/models/gemini-mock:asyncBatchEmbedContent'],
    ]) {
      const response = await fetch(`${gateway.url}${path}`, {
        method,
        headers: { 'x-goog-api-key': gateway.key },
        body: method === 'POST' ? '{}' : undefined,
      })
      expect(response.status).toBe(404)
      expect((await response.json()).error).toMatchObject({ code: 404, status: 'NOT_FOUND' })
    }
    const openAiList = await fetch(`${gateway.url}/v1/models`, { headers: { authorization: `Bearer ${gateway.key}` } })
    expect((await openAiList.json()).object).toBe('list')
  })

  test('?key= works, and without alt=sse the stream is one JSON array', async () => {
    const response = await fetch(`${gateway.url}/v1beta/models/gemini-pass:streamGenerateContent?key=${gateway.key}`, {
      method: 'POST',
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
    })
    expect(response.status).toBe(200)
    const chunks = (await response.json()) as { candidates: { content: { parts: { text?: string }[] }; finishReason?: string }[] }[]
    expect(chunks.map((chunk) => chunk.candidates[0]!.content.parts.map((part) => part.text).join('')).join('')).toBe(
      'Hello from gemini upstream',
    )
    expect(chunks.at(-1)!.candidates[0]!.finishReason).toBe('STOP')
  })
})

describe('billing from Gemini usage, cached tokens included', () => {
  // 8 uncached input at $1.25/M + 3 cached at $0.125/M + (5 answer + 2 thought) output at $10/M = 10000 + 375 + 70000
  const expected = 80_375
  for (const [model, stream] of [
    ['gemini-pass', false],
    ['gemini-pass', true],
    ['gemini-ir', false],
    ['gemini-ir', true],
  ] as const) {
    test(`${model} ${stream ? 'streamed' : 'whole'} moves the balance by exactly ${expected} nano-dollars`, async () => {
      const before = await gateway.settled()
      if (stream)
        for await (const _ of await ai.models.generateContentStream({ model, contents: 'hi' })) {
        }
      else await ai.models.generateContent({ model, contents: 'hi' })
      const after = await gateway.settled()
      expect(before.balance - after.balance).toBe(expected)
    })
  }
})
