import { afterAll, beforeAll, expect, test } from 'bun:test'
import Anthropic from '@anthropic-ai/sdk'
import { GoogleGenAI } from '@google/genai'
import OpenAI from 'openai'
import { startTestGateway, type TestGateway } from './support/gateway.ts'

/**
 * The configured context window and output cap reach clients in each vendor's models endpoint shape, so tools that
 * budget by them (coding CLIs, SDK users) need not guess: OpenAI's list (`context_window`, `max_output_tokens`),
 * Anthropic's model objects (`max_input_tokens`, `max_tokens`), Gemini's (`inputTokenLimit`, `outputTokenLimit`).
 */
let gateway: TestGateway

beforeAll(async () => {
  gateway = await startTestGateway({
    config: {
      providers: [{ name: 'mock', type: 'mock' }],
      models: [
        { id: 'big', provider: 'mock', price: { input: 1, output: 2 }, context_window: 200000, max_output_tokens: 16384 },
        { id: 'small', provider: 'mock', price: { input: 1, output: 2 }, max_output_tokens: 1024 },
      ],
    },
  })
})

afterAll(() => gateway.stop())

test('OpenAI: /v1/models carries context_window and max_output_tokens from the config', async () => {
  const client = new OpenAI({ baseURL: gateway.baseUrl, apiKey: gateway.key })
  const models = (await client.models.list()).data as unknown as Record<string, unknown>[]
  expect(models.map(({ id, context_window, max_output_tokens }) => ({ id, context_window, max_output_tokens }))).toEqual([
    { id: 'big', context_window: 200000, max_output_tokens: 16384 },
    { id: 'small', context_window: null, max_output_tokens: 1024 },
  ])
})

test('Anthropic: the model list and a single model carry max_input_tokens and max_tokens', async () => {
  const client = new Anthropic({ baseURL: gateway.url, apiKey: gateway.key, maxRetries: 0 })
  const listed = (await client.models.list()).data
  expect(listed.map(({ id, max_input_tokens, max_tokens }) => ({ id, max_input_tokens, max_tokens }))).toEqual([
    { id: 'big', max_input_tokens: 200000, max_tokens: 16384 },
    { id: 'small', max_input_tokens: null, max_tokens: 1024 },
  ])
  expect(await client.models.retrieve('big')).toMatchObject({ max_input_tokens: 200000, max_tokens: 16384 })
})

test('Gemini: inputTokenLimit and outputTokenLimit', async () => {
  const ai = new GoogleGenAI({ apiKey: gateway.key, httpOptions: { baseUrl: gateway.url } })
  expect(await ai.models.get({ model: 'big' })).toMatchObject({ inputTokenLimit: 200000, outputTokenLimit: 16384 })
})
