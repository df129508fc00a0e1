import Anthropic from '@anthropic-ai/sdk'
import { GoogleGenAI } from '@google/genai'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import OpenAI from 'openai'
import { startTestGateway, type TestGateway } from './support/gateway.ts'
import { jsonReply, startUpstream, type TestUpstream } from './support/upstream.ts'

/**
 * What a request asks for must be what is held and billed: content referenced by URL is held at the model's context
 * window and billed at the upstream's report; paid upstream features the ledger cannot price are refused unless
 * allowed; a forwarded body means exactly what was checked (no duplicate keys, no twins left unclamped).
 */

let gateway: TestGateway
let openai: TestUpstream
let anthropic: TestUpstream
let gemini: TestUpstream
/** What each upstream reports as the prompt's token count, set per test. */
let promptTokens = 10

// $1 per 1M input tokens, $2 per 1M output: 1000 and 2000 nano-dollars per token.
const price = { input: 1, output: 2 }

beforeAll(async () => {
  openai = startUpstream(({ body }) =>
    jsonReply({
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1,
      model: body.model,
      choices: [{ index: 0, message: { role: 'assistant', content: 'seen' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: promptTokens, completion_tokens: 2, total_tokens: promptTokens + 2 },
    }),
  )
  anthropic = startUpstream(({ body }) =>
    jsonReply({
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: body.model,
      content: [{ type: 'text', text: 'seen' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: promptTokens, output_tokens: 2 },
    }),
  )
  gemini = startUpstream(() =>
    jsonReply({
      candidates: [{ content: { role: 'model', parts: [{ text: 'seen' }] }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: promptTokens, candidatesTokenCount: 2, totalTokenCount: promptTokens + 2 },
      modelVersion: 'gemini-up',
    }),
  )
  const window = 1_000_000
  gateway = await startTestGateway({
    config: {
      providers: [
        { name: 'openai', type: 'openai', base_url: `${openai.url}/v1`, api_key: 'sk-up' },
        { name: 'anthropic', type: 'anthropic', base_url: anthropic.url, api_key: 'sk-up' },
        { name: 'gemini', type: 'gemini', base_url: gemini.url, api_key: 'up' },
      ],
      models: [
        { id: 'gpt-up', provider: 'openai', price, max_output_tokens: 100, context_window: window },
        { id: 'claude-up', provider: 'anthropic', price, max_output_tokens: 100, context_window: window },
        { id: 'gemini-up', provider: 'gemini', price, max_output_tokens: 100, context_window: window },
        { id: 'gemini-small', provider: 'gemini', upstream_model: 'gemini-up', price, max_output_tokens: 100 },
        { id: 'claude-search', provider: 'anthropic', upstream_model: 'claude-up', price, max_output_tokens: 100, allow: ['web_search'] },
      ],
    },
    balanceUsd: '10',
  })
})

afterAll(async () => {
  await gateway.stop()
  await Promise.all([openai.stop(), anthropic.stop(), gemini.stop()])
})

/** What the account paid for whatever `run` did. */
async function spentBy(run: () => Promise<unknown>): Promise<number> {
  const before = await gateway.settled()
  await run()
  const after = await gateway.settled()
  expect(after.reserved).toBe(0)
  return before.balance - after.balance
}

function post(path: string, body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${gateway.url}${path}`, {
    method: 'POST',
    body,
    headers: {
      authorization: `Bearer ${gateway.key}`,
      'x-api-key': gateway.key,
      'content-type': 'application/json',
      'anthropic-version': '2023-06-01',
      ...headers,
    },
  })
}

describe('content referenced by URL', () => {
  test('a Gemini fileData video is billed at the upstream report, not at the body bytes', async () => {
    promptTokens = 950_000
    const client = new GoogleGenAI({ apiKey: gateway.key, httpOptions: { baseUrl: gateway.url } })
    const cost = await spentBy(() =>
      client.models.generateContent({
        model: 'gemini-up',
        contents: [
          {
            role: 'user',
            parts: [{ text: 'what happens?' }, { fileData: { fileUri: 'https://example.invalid/video.mp4', mimeType: 'video/mp4' } }],
          },
        ],
      }),
    )
    expect(cost).toBe(950_000 * 1000 + 2 * 2000)
  })

  test('an Anthropic document given by URL is billed at the upstream report', async () => {
    promptTokens = 150_000
    const client = new Anthropic({ apiKey: gateway.key, baseURL: gateway.url })
    const cost = await spentBy(() =>
      client.messages.create({
        model: 'claude-up',
        max_tokens: 50,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'document', source: { type: 'url', url: 'https://example.invalid/a.pdf' } },
              { type: 'text', text: 'sum up' },
            ],
          },
        ],
      }),
    )
    expect(cost).toBe(150_000 * 1000 + 2 * 2000)
  })

  test('an OpenAI image_url is billed at the upstream report', async () => {
    promptTokens = 40_000
    const client = new OpenAI({ apiKey: gateway.key, baseURL: gateway.baseUrl })
    const cost = await spentBy(() =>
      client.chat.completions.create({
        model: 'gpt-up',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'what is it?' },
              { type: 'image_url', image_url: { url: 'https://example.invalid/cat.png' } },
            ],
          },
        ],
      }),
    )
    expect(cost).toBe(40_000 * 1000 + 2 * 2000)
  })

  test('a model without context_window refuses referenced content with a 400 naming the part, and costs nothing', async () => {
    promptTokens = 950_000
    const before = gemini.requests.length
    const cost = await spentBy(async () => {
      const response = await post(
        '/v1beta/models/gemini-small:generateContent',
        JSON.stringify({
          contents: [{ role: 'user', parts: [{ text: 'hi' }, { fileData: { fileUri: 'https://example.invalid/v.mp4' } }] }],
        }),
        { 'x-goog-api-key': gateway.key },
      )
      expect(response.status).toBe(400)
      const error = (await response.json()) as { error: { message: string } }
      expect(error.error.message).toContain('contents[0].parts[1].fileData')
      expect(error.error.message).toContain('context_window')
    })
    expect(cost).toBe(0)
    expect(gemini.requests.length).toBe(before)
  })
})

describe('paid upstream features', () => {
  test('an Anthropic server tool is refused with a 400 naming it, before any upstream call', async () => {
    const before = anthropic.requests.length
    const response = await post(
      '/v1/messages',
      JSON.stringify({
        model: 'claude-up',
        max_tokens: 50,
        messages: [{ role: 'user', content: 'search' }],
        tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 5 }],
      }),
    )
    expect(response.status).toBe(400)
    const error = (await response.json()) as { type: string; error: { type: string; message: string } }
    expect(error.error.type).toBe('invalid_request_error')
    expect(error.error.message).toContain("'tools[0].type'")
    expect(error.error.message).toContain('web_search')
    expect(anthropic.requests.length).toBe(before)
  })

  test('a model whose config allows the feature forwards it', async () => {
    promptTokens = 10
    const response = await post(
      '/v1/messages',
      JSON.stringify({
        model: 'claude-search',
        max_tokens: 50,
        messages: [{ role: 'user', content: 'search' }],
        tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 5 }],
      }),
    )
    expect(response.status).toBe(200)
    expect(anthropic.requests.at(-1)!.body.tools[0].type).toBe('web_search_20250305')
  })

  test.each([
    ['mcp_servers', { mcp_servers: [{ type: 'url', url: 'https://example.invalid/mcp', name: 'x' }] }],
    ['service_tier', { service_tier: 'auto' }],
  ])('Anthropic %s is refused', async (field, extra) => {
    const response = await post(
      '/v1/messages',
      JSON.stringify({ model: 'claude-up', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }], ...extra }),
    )
    expect(response.status).toBe(400)
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain(`'${field}'`)
  })

  test.each([
    ['service_tier', { service_tier: 'priority' }],
    ['web_search_options', { web_search_options: {} }],
  ])('OpenAI %s is refused', async (field, extra) => {
    const response = await post(
      '/v1/chat/completions',
      JSON.stringify({ model: 'gpt-up', messages: [{ role: 'user', content: 'hi' }], ...extra }),
    )
    expect(response.status).toBe(400)
    const error = (await response.json()) as { error: { param: string } }
    expect(error.error.param).toBe(field)
  })

  test.each([
    ['tools[0].googleSearch', { tools: [{ googleSearch: {} }] }],
    ['tools[0].url_context', { tools: [{ url_context: {} }] }],
    ['cachedContent', { cachedContent: 'cachedContents/abc' }],
  ])('Gemini %s is refused', async (field, extra) => {
    const response = await post(
      '/v1beta/models/gemini-up:generateContent',
      JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }], ...extra }),
      { 'x-goog-api-key': gateway.key },
    )
    expect(response.status).toBe(400)
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain(`'${field}'`)
  })

  test('a plain service tier passes', async () => {
    const response = await post(
      '/v1/chat/completions',
      JSON.stringify({ model: 'gpt-up', service_tier: 'default', messages: [{ role: 'user', content: 'hi' }] }),
    )
    expect(response.status).toBe(200)
  })
})

describe('the forwarded body means what was checked', () => {
  test('a duplicate model key is refused on the passthrough path', async () => {
    const before = openai.requests.length
    const response = await post(
      '/v1/chat/completions',
      '{"model":"gpt-5-pro","model":"gpt-up","messages":[{"role":"user","content":"hi"}]}',
    )
    expect(response.status).toBe(400)
    expect(((await response.json()) as { error: { param: string } }).error.param).toBe('model')
    expect(openai.requests.length).toBe(before)
  })

  test('a duplicate output cap is refused, escaped spellings included', async () => {
    const response = await post(
      '/v1/messages',
      '{"model":"claude-up","max_tokens":50,"max_tok\\u0065ns":99999,"messages":[{"role":"user","content":"hi"}]}',
    )
    expect(response.status).toBe(400)
  })

  test('max_tokens beside max_completion_tokens: both are capped', async () => {
    const response = await post(
      '/v1/chat/completions',
      JSON.stringify({ model: 'gpt-up', max_completion_tokens: 50, max_tokens: 100_000, messages: [{ role: 'user', content: 'hi' }] }),
    )
    expect(response.status).toBe(200)
    const received = openai.requests.at(-1)!.body
    expect(received.max_tokens).toBe(100)
    expect(received.max_completion_tokens).toBe(50)
  })

  test('generation_config beside generationConfig is refused', async () => {
    const response = await post(
      '/v1beta/models/gemini-up:generateContent',
      JSON.stringify({
        contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
        generationConfig: { maxOutputTokens: 10 },
        generation_config: { max_output_tokens: 100_000 },
      }),
      { 'x-goog-api-key': gateway.key },
    )
    expect(response.status).toBe(400)
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain('generation_config')
  })

  test('keys repeated in different objects are fine', async () => {
    const response = await post(
      '/v1/chat/completions',
      JSON.stringify({
        model: 'gpt-up',
        messages: [
          { role: 'user', content: 'a' },
          { role: 'assistant', content: 'b' },
          { role: 'user', content: 'c' },
        ],
      }),
    )
    expect(response.status).toBe(200)
  })
})
