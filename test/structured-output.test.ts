import Anthropic from '@anthropic-ai/sdk'
import { jsonSchemaOutputFormat } from '@anthropic-ai/sdk/helpers/json-schema'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import OpenAI from 'openai'
import { GoogleGenAI } from '@google/genai'
import { startTestGateway, type TestGateway } from './support/gateway.ts'
import { structuredAnswer, structuredSchema } from './support/matrix/plans.ts'
import { type MatrixUpstreams, startMatrixUpstreams, type UpstreamKind, upstreamKinds } from './support/matrix/upstreams.ts'

/**
 * Issue 17: structured output through the official SDKs' own helpers, on every kind of upstream (translated, never
 * forwarded: the `-ir` columns for the HTTP kinds), with what the upstream received; and the input tokens an
 * Anthropic stream reports, read by the SDK's stream helper and in message_start itself.
 */
let upstreams: MatrixUpstreams
let gateway: TestGateway
let openai: OpenAI
let anthropic: Anthropic

beforeAll(async () => {
  upstreams = startMatrixUpstreams()
  gateway = await startTestGateway({ config: upstreams.config, balanceUsd: '1000' })
  openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: gateway.key, maxRetries: 0 })
  anthropic = new Anthropic({ baseURL: gateway.url, apiKey: gateway.key, maxRetries: 0 })
})

afterAll(async () => {
  await gateway?.stop()
  await upstreams?.stop()
})

/** The translated column of each upstream kind (the mock has only one). */
const translated = (kind: UpstreamKind) => upstreams.specs[kind === 'mock' ? 'mock' : (`${kind}-ir` as const)]

/** The schema the upstream was given, read from its own wire format; undefined when it got none. */
function schemaReceived(kind: UpstreamKind): unknown {
  const body = translated(kind).server?.requests.at(-1)?.body
  if (kind === 'openai') return body.response_format?.json_schema?.schema
  if (kind === 'anthropic') return body.output_config?.format?.schema
  if (kind === 'gemini') return body.generationConfig?.responseJsonSchema
  return structuredSchema // the mock has no wire: its answer below shows it read the schema
}

describe.each(upstreamKinds)('structured output → %s upstream', (kind) => {
  test('openai chat.completions.parse with a json_schema response_format gets the parsed object', async () => {
    const completion = await openai.chat.completions.parse({
      model: translated(kind).model,
      messages: [{ role: 'user', content: 'Weather in Paris as JSON' }],
      response_format: { type: 'json_schema', json_schema: { name: 'weather', schema: { ...structuredSchema }, strict: true } },
    })
    const parsed = completion.choices[0]!.message.parsed as Record<string, unknown>
    if (kind === 'mock') expect(Object.keys(parsed).sort()).toEqual(['city', 'temperature'])
    else expect(parsed).toEqual(structuredAnswer)
    expect(schemaReceived(kind)).toEqual(structuredSchema)
    expect(completion.choices[0]!.finish_reason).toBe('stop')
  })

  test('anthropic messages.parse with output_config.format gets parsed_output', async () => {
    const message = await anthropic.messages.parse({
      model: translated(kind).model,
      max_tokens: 200,
      messages: [{ role: 'user', content: 'Weather in Paris as JSON' }],
      output_config: { format: jsonSchemaOutputFormat(structuredSchema) },
    })
    const parsed = message.parsed_output as Record<string, unknown>
    if (kind === 'mock') expect(Object.keys(parsed).sort()).toEqual(['city', 'temperature'])
    else expect(parsed).toEqual(structuredAnswer)
    expect(schemaReceived(kind)).toEqual(structuredSchema)
  })

  test('openai json_object mode answers JSON (toward Anthropic, through a forced tool unwrapped as text)', async () => {
    for (const stream of [false, true]) {
      let text: string
      let finish: string | null
      const params = {
        model: translated(kind).model,
        messages: [{ role: 'user' as const, content: 'Weather in Paris as JSON' }],
        response_format: { type: 'json_object' as const },
      }
      if (stream) {
        const final = await openai.chat.completions.stream(params).finalChatCompletion()
        text = final.choices[0]!.message.content ?? ''
        finish = final.choices[0]!.finish_reason
      } else {
        const completion = await openai.chat.completions.create(params)
        text = completion.choices[0]!.message.content ?? ''
        finish = completion.choices[0]!.finish_reason
      }
      expect(JSON.parse(text)).toBeObject()
      expect(finish).toBe('stop')
      if (kind === 'anthropic') {
        const body = translated(kind).server!.requests.at(-1)!.body
        expect(body.tool_choice).toEqual({ type: 'tool', name: 'tollgate_json_answer' })
        expect(JSON.parse(text)).toEqual(structuredAnswer)
      }
    }
  })
})

describe('streamed usage on translated Anthropic streams', () => {
  // Upstream reports (test/support/*-upstream.ts): Anthropic 5 + 4 cache reads + 2 cache writes; OpenAI 11 of which
  // 3 cached; Gemini 11 of which 3 cached. Anthropic's input_tokens excludes the cached ones.
  const exact: Record<string, { input_tokens: number; cache_read_input_tokens: number }> = {
    anthropic: { input_tokens: 5, cache_read_input_tokens: 4 },
    openai: { input_tokens: 8, cache_read_input_tokens: 3 },
    gemini: { input_tokens: 8, cache_read_input_tokens: 3 },
  }
  const params = (model: string) => ({
    model,
    max_tokens: 100,
    messages: [{ role: 'user' as const, content: 'Hello there, how are you today?' }],
  })

  test.each(['anthropic', 'openai', 'gemini'] as const)(
    "→ %s: the stream helper's finalMessage().usage has the exact counts",
    async (kind) => {
      const final = await anthropic.messages.stream(params(translated(kind).model)).finalMessage()
      expect(final.usage).toMatchObject(exact[kind]!)
    },
  )

  test.each(['anthropic', 'gemini'] as const)(
    '→ %s: message_start already has the exact input tokens (the upstream reports them up front)',
    async (kind) => {
      const stream = await anthropic.messages.create({ ...params(translated(kind).model), stream: true })
      let start: Anthropic.Usage | undefined
      for await (const event of stream) if (event.type === 'message_start') start = event.message.usage
      expect(start).toMatchObject(exact[kind]!)
    },
  )
})

describe('log probabilities come back to the client', () => {
  const asked = { messages: [{ role: 'user' as const, content: 'Hello' }], logprobs: true, top_logprobs: 2 }

  test("Chat Completions through the IR: choices[0].logprobs has the upstream's tokens and alternatives", async () => {
    const completion = await openai.chat.completions.create({ model: translated('openai').model, ...asked })
    expect(completion.choices[0]!.logprobs?.content?.[0]).toMatchObject({
      token: 'Hello',
      logprob: -0.25,
      top_logprobs: [{ token: 'Hello' }, { token: 'Hi', logprob: -1.5 }],
    })
    expect(translated('openai').server!.requests.at(-1)!.body).toMatchObject({ logprobs: true, top_logprobs: 2 })
  })

  test('Responses: the output_text carries them', async () => {
    const response = await openai.responses.create({ model: translated('openai').model, input: 'Hello', top_logprobs: 2 })
    const message = response.output.find((item) => item.type === 'message') as { content: { logprobs?: unknown[] }[] }
    expect(message.content[0]!.logprobs?.[0]).toMatchObject({ token: 'Hello', logprob: -0.25 })
  })

  test('Responses, streamed: the text delta carries them, and so do output_text.done and the final response', async () => {
    const stream = await openai.responses.create({ model: translated('openai').model, input: 'Hello', top_logprobs: 2, stream: true })
    const deltas: { delta: string; logprobs: unknown[] }[] = []
    let done: unknown[] | undefined
    let final: OpenAI.Responses.Response | undefined
    for await (const event of stream) {
      if (event.type === 'response.output_text.delta') deltas.push({ delta: event.delta, logprobs: event.logprobs })
      if (event.type === 'response.output_text.done') done = event.logprobs
      if (event.type === 'response.completed') final = event.response
    }
    expect(deltas[0]).toEqual({
      delta: 'Hello',
      logprobs: [
        {
          token: 'Hello',
          logprob: -0.25,
          top_logprobs: [
            { token: 'Hello', logprob: -0.25 },
            { token: 'Hi', logprob: -1.5 },
          ],
        },
      ],
    })
    expect(deltas.slice(1).every((delta) => delta.logprobs.length === 0)).toBe(true)
    expect(done).toEqual(deltas[0]!.logprobs)
    const message = final!.output.find((item) => item.type === 'message') as { content: { logprobs?: unknown[] }[] }
    expect(message.content[0]!.logprobs?.[0]).toMatchObject({
      token: 'Hello',
      logprob: -0.25,
      top_logprobs: [{ token: 'Hello' }, { token: 'Hi' }],
    })
  })

  test('Gemini, streamed: the chunk with the text carries logprobsResult', async () => {
    const gemini = new GoogleGenAI({ apiKey: gateway.key, httpOptions: { baseUrl: gateway.url } })
    const stream = await gemini.models.generateContentStream({
      model: translated('openai').model,
      contents: 'Hello',
      config: { responseLogprobs: true, logprobs: 2 },
    })
    const results: unknown[] = []
    let text = ''
    for await (const chunk of stream) {
      text += chunk.text ?? ''
      if (chunk.candidates?.[0]?.logprobsResult) results.push(chunk.candidates[0].logprobsResult)
    }
    expect(text).toBe('Hello from upstream')
    expect(results).toEqual([
      {
        chosenCandidates: [{ token: 'Hello', logProbability: -0.25 }],
        topCandidates: [
          {
            candidates: [
              { token: 'Hello', logProbability: -0.25 },
              { token: 'Hi', logProbability: -1.5 },
            ],
          },
        ],
      },
    ])
  })

  test("Anthropic upstream: a 400 naming the field and the upstream kind, in the client's protocol", async () => {
    const error = await openai.chat.completions.create({ model: translated('anthropic').model, ...asked }).catch((caught) => caught)
    expect(error).toBeInstanceOf(OpenAI.BadRequestError)
    expect(error.message).toContain("'logprobs'")
    expect(error.message).toContain('(anthropic)')
  })
})
