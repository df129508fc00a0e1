import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import Anthropic from '@anthropic-ai/sdk'
import { GoogleGenAI } from '@google/genai'
import OpenAI from 'openai'
import { handleAnthropic, upstreamKey } from './support/anthropic-upstream.ts'
import { startTestGateway, type TestGateway } from './support/gateway.ts'
import { handleGemini } from './support/gemini-upstream.ts'
import { handleOpenAi } from './support/openai-upstream.ts'
import { startUpstream, type TestUpstream, type UpstreamHandler } from './support/upstream.ts'

/**
 * Upstreams that report usage the gateway cannot bill from: a count that is a string, an object, a number too large
 * for a double (`1e400` parses as Infinity) or negative. Each shape's fixed usage has its input count rewritten in the
 * raw body (whole answers and every stream event), so the rest of the report stays valid and tempting.
 */
const variants = { string: '"abc"', object: '{}', huge: '1e400', negative: '-1000000' } as const
type Variant = keyof typeof variants

/** The handler's answer with `field` (a count in the fixed usage) replaced, as text, by the variant named in the model. */
function corrupting(handler: UpstreamHandler, field: string, good: number): UpstreamHandler {
  return async (request, raw) => {
    const variant = /bad-(\w+)/.exec(request.path + JSON.stringify(request.body?.model ?? ''))?.[1] as Variant
    const response = await handler(request, raw)
    const text = (await response.text()).replaceAll(`"${field}":${good}`, `"${field}":${variants[variant]}`)
    if (!text.includes(variants[variant])) throw new Error(`nothing to corrupt: ${field} not in ${text}`)
    return new Response(text, { status: response.status, headers: response.headers })
  }
}

let openai: TestUpstream
let anthropic: TestUpstream
let gemini: TestUpstream
let gateway: TestGateway

const price = { input: 1, output: 2 }

beforeAll(async () => {
  openai = startUpstream(corrupting(handleOpenAi(), 'prompt_tokens', 11))
  anthropic = startUpstream(corrupting(handleAnthropic(), 'input_tokens', 5))
  gemini = startUpstream(corrupting(handleGemini(), 'promptTokenCount', 11))
  const providers = [
    { name: 'openai-pass', type: 'openai', base_url: `${openai.url}/v1`, api_key: 'k' },
    { name: 'openai-ir', type: 'openai', base_url: `${openai.url}/v1`, api_key: 'k', passthrough: false },
    { name: 'claude-pass', type: 'anthropic', base_url: anthropic.url, api_key: upstreamKey },
    { name: 'claude-ir', type: 'anthropic', base_url: anthropic.url, api_key: upstreamKey, passthrough: false },
    { name: 'gemini-pass', type: 'gemini', base_url: gemini.url, api_key: 'k' },
    { name: 'gemini-ir', type: 'gemini', base_url: gemini.url, api_key: 'k', passthrough: false },
  ]
  const models = providers.flatMap((provider) =>
    Object.keys(variants).map((variant) => ({
      id: `${provider.name}-${variant}`,
      provider: provider.name,
      upstream_model: `bad-${variant}`,
      price,
      max_output_tokens: 256,
    })),
  )
  gateway = await startTestGateway({ config: { providers, models } })
})

afterAll(async () => {
  await gateway.stop()
  await openai.stop()
  await anthropic.stop()
  await gemini.stop()
})

type Ask = (secret: string, model: string, stream: boolean) => Promise<string>

const askOpenAi: Ask = async (secret, model, stream) => {
  const client = new OpenAI({ baseURL: gateway.baseUrl, apiKey: secret, maxRetries: 0 })
  const messages = [{ role: 'user' as const, content: 'say hello' }]
  if (!stream) return (await client.chat.completions.create({ model, messages })).choices[0]!.message.content ?? ''
  let text = ''
  for await (const chunk of await client.chat.completions.create({ model, messages, stream: true }))
    text += chunk.choices[0]?.delta.content ?? ''
  return text
}

const askAnthropic: Ask = async (secret, model, stream) => {
  const client = new Anthropic({ baseURL: gateway.url, apiKey: secret, maxRetries: 0 })
  const request = { model, max_tokens: 100, messages: [{ role: 'user' as const, content: 'say hello' }] }
  if (!stream) return (await client.messages.create(request)).content.map((block) => (block.type === 'text' ? block.text : '')).join('')
  let text = ''
  for await (const event of await client.messages.create({ ...request, stream: true })) {
    if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') text += event.delta.text
  }
  return text
}

const askGemini: Ask = async (secret, model, stream) => {
  const ai = new GoogleGenAI({ apiKey: secret, httpOptions: { baseUrl: gateway.url } })
  if (!stream) return (await ai.models.generateContent({ model, contents: 'say hello' })).text ?? ''
  let text = ''
  for await (const chunk of await ai.models.generateContentStream({ model, contents: 'say hello' })) text += chunk.text ?? ''
  return text
}

/** Wait (briefly) until the relay counts no request in flight; false when it never gets there. */
async function relayIdle(): Promise<boolean> {
  const relay = gateway.gateway.services.relay
  for (let tries = 0; tries < 100 && relay.inFlight > 0; tries++) await Bun.sleep(10)
  return relay.inFlight === 0
}

const shapes: [string, Ask, string][] = [
  ['OpenAI-shaped', askOpenAi, 'openai'],
  ['Anthropic-shaped', askAnthropic, 'claude'],
  ['Gemini-shaped', askGemini, 'gemini'],
]

describe.each(shapes)('%s upstream with malformed usage', (_, ask, prefix) => {
  test.each(Object.keys(variants) as Variant[])('input count %s: billed by estimate, key and relay freed at once', async (variant) => {
    // One request at a time on this key: a request whose permit was never given back blocks the next one with 429.
    const { secret, record } = await gateway.createKey({ concurrency: 1 })
    const store = gateway.gateway.services.store
    let requests = 0
    for (const path of ['pass', 'ir']) {
      for (const stream of [false, true]) {
        const model = `${prefix}-${path}-${variant}`
        const text = await ask(secret, model, stream)
        expect(text).toContain('Hello')
        expect({ model, stream, idle: await relayIdle() }).toEqual({ model, stream, idle: true })
        requests++
        await gateway.gateway.services.ledger.flush()
        const [row] = await store.usage.listRequests({ keyId: record.id }, 1)
        expect({ model, stream, estimated: row!.estimated }).toEqual({ model, stream, estimated: true })
        expect(row!.model).toBe(model)
        expect(row!.inputTokens).toBeGreaterThan(0)
        expect(row!.cost).toBeGreaterThan(0)
        for (const count of [row!.inputTokens, row!.cachedInputTokens, row!.cacheWriteTokens, row!.outputTokens, row!.reasoningTokens]) {
          expect(Number.isSafeInteger(count) && count >= 0).toBe(true)
        }
      }
    }
    const account = await gateway.settled()
    expect(account.reserved).toBe(0)
    expect(account.balance).toBeGreaterThan(0)
    expect((await store.usage.summarize({ keyId: record.id })).requests).toBe(requests)
  })
})
