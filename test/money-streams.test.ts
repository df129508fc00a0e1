import Anthropic from '@anthropic-ai/sdk'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import OpenAI from 'openai'
import { startFaultyUpstream, type FaultyUpstream } from './support/faulty-upstream.ts'
import { settledRowsOf } from './support/settled-rows.ts'
import { startTestGateway, type TestGateway } from './support/gateway.ts'
import { sseResponse, startUpstream, type TestUpstream } from './support/upstream.ts'

/**
 * However a stream ends after text reached the client, the client pays for what was produced; and a client leaving a
 * reasoning answer just before its end still pays for the hidden reasoning tokens the upstream reports at the end.
 */

let thinker: TestUpstream
let faulty: FaultyUpstream
let gateway: TestGateway
const databasePath = join(mkdtempSync(join(tmpdir(), 'tollgate-money-streams-')), 'tollgate.db')
// $1 and $2 per 1M tokens: 1000 and 2000 nano-dollars per token.
const price = { input: 1, output: 2 }
/** What the reasoning upstream reports at the end: 20 visible tokens and 4,980 hidden ones. */
const reported = { prompt_tokens: 10, completion_tokens: 5000, completion_tokens_details: { reasoning_tokens: 4980 } }
const fullCost = 10 * 1000 + 5000 * 2000

function chunk(delta: Record<string, unknown>, finish: string | null = null) {
  return `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'o-up', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`
}

beforeAll(async () => {
  // A reasoning model: thinks (hidden), then streams 20 words slowly, then reports usage.
  thinker = startUpstream(({ body }) => {
    const events = [chunk({ role: 'assistant', content: '' })]
    for (let index = 0; index < 20; index++) events.push(chunk({ content: ` w${index}` }))
    events.push(chunk({}, 'stop'))
    if (body.stream_options?.include_usage)
      events.push(
        `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'o-up', choices: [], usage: { ...reported, total_tokens: 5010 } })}\n\n`,
      )
    events.push('data: [DONE]\n\n')
    return sseResponse(events, 15)
  })
  faulty = startFaultyUpstream()
  gateway = await startTestGateway({
    databasePath,
    config: {
      routing: { max_attempts: 1 },
      providers: [
        { name: 'thinker', type: 'openai', base_url: `${thinker.url}/v1` },
        { name: 'thinker-ir', type: 'openai', base_url: `${thinker.url}/v1`, passthrough: false },
        { name: 'faulty', type: 'openai', base_url: `${faulty.url}/v1` },
        { name: 'faulty-ir', type: 'openai', base_url: `${faulty.url}/v1`, passthrough: false },
        { name: 'slow', type: 'openai', base_url: `${faulty.url}/v1`, timeouts: { total_ms: 400 } },
      ],
      models: [
        { id: 'think-pass', provider: 'thinker', upstream_model: 'o-up', price, reasoning: true, max_output_tokens: 10000 },
        { id: 'think-ir', provider: 'thinker-ir', upstream_model: 'o-up', price, reasoning: true, max_output_tokens: 10000 },
        { id: 'plain-ir', provider: 'thinker-ir', upstream_model: 'o-up', price, max_output_tokens: 10000 },
        { id: 'cut-pass', provider: 'faulty', upstream_model: 'u', price },
        { id: 'cut-ir', provider: 'faulty-ir', upstream_model: 'u', price },
        { id: 'slow', provider: 'slow', upstream_model: 'u', price },
      ],
    },
  })
})

afterAll(async () => {
  await gateway.stop()
  await thinker.stop()
  faulty.stop()
})

async function freshKey() {
  const { secret, record } = await gateway.createKey()
  return { secret, keyId: record.id }
}

const settledRows = (keyId: string) => settledRowsOf(gateway, databasePath, keyId)

/** Read `count` text deltas of an OpenAI stream, then leave. */
async function leaveAfter(model: string, count: number, secret: string): Promise<string> {
  const client = new OpenAI({ baseURL: gateway.baseUrl, apiKey: secret, maxRetries: 0 })
  const stream = await client.chat.completions.create({ model, stream: true, messages: [{ role: 'user', content: 'think hard' }] })
  let seen = 0
  let text = ''
  for await (const part of stream) {
    const delta = part.choices[0]?.delta?.content
    if (!delta) continue
    text += delta
    if (++seen === count) break // the SDK aborts the request
  }
  return text
}

describe('a client leaving a reasoning answer', () => {
  for (const model of ['think-pass', 'think-ir']) {
    test(`pays the upstream's full report, hidden reasoning included (${model})`, async () => {
      const { secret, keyId } = await freshKey()
      const text = await leaveAfter(model, 19, secret)
      expect(text.trim().split(' ').length).toBe(19)
      const [row] = await settledRows(keyId)
      expect(row).toEqual({ status: 499, error_type: 'client_closed', input_tokens: 10, output_tokens: 5000, cost: fullCost, estimated: 0 })
    })
  }

  test('a request that asks for thinking reads on too (Anthropic client, translated to an OpenAI upstream)', async () => {
    const { secret, keyId } = await freshKey()
    const client = new Anthropic({ baseURL: gateway.url, apiKey: secret, maxRetries: 0 })
    const stream = client.messages.stream({
      model: 'plain-ir',
      max_tokens: 8000,
      thinking: { type: 'enabled', budget_tokens: 4000 },
      messages: [{ role: 'user', content: 'think hard' }],
    })
    let seen = 0
    for await (const event of stream) {
      if (event.type === 'content_block_delta' && ++seen === 5) break
    }
    stream.abort()
    const [row] = await settledRows(keyId)
    expect(row).toMatchObject({ status: 499, output_tokens: 5000, cost: fullCost })
  })

  test('other requests stop the upstream and pay for what was produced', async () => {
    const { secret, keyId } = await freshKey()
    await leaveAfter('plain-ir', 3, secret)
    const [row] = await settledRows(keyId)
    expect(row!.status).toBe(499)
    expect(row!.cost).toBeGreaterThan(0)
    expect(row!.cost).toBeLessThan(fullCost / 10)
  })
})

describe('a stream cut after its answer began', () => {
  for (const model of ['cut-pass', 'cut-ir']) {
    test(`by the upstream dropping the connection is billed for the words sent (${model})`, async () => {
      faulty.fault = { kind: 'cut-mid', after: 4, delayMs: 10, text: 'Rivers carve valleys over thousands of years' }
      const { secret, keyId } = await freshKey()
      const client = new OpenAI({ baseURL: gateway.baseUrl, apiKey: secret, maxRetries: 0 })
      let text = ''
      const error = await (async () => {
        for await (const part of await client.chat.completions.create({
          model,
          stream: true,
          messages: [{ role: 'user', content: 'rivers' }],
        })) {
          text += part.choices[0]?.delta?.content ?? ''
        }
      })().catch((caught) => caught)
      expect(error).toBeInstanceOf(Error)
      expect(text.length).toBeGreaterThan(0)
      const [row] = await settledRows(keyId)
      expect(row!.status).toBeGreaterThanOrEqual(500)
      expect(row!.output_tokens).toBeGreaterThan(0)
      expect(row!.cost).toBe(row!.input_tokens * 1000 + row!.output_tokens * 2000)
      expect(row!.estimated).toBe(1)
    })
  }

  test('by the total timeout is billed for the words sent', async () => {
    faulty.fault = { kind: 'ok', delayMs: 150, text: 'Rivers carve valleys over thousands of years and carry sediment' }
    const { secret, keyId } = await freshKey()
    const client = new OpenAI({ baseURL: gateway.baseUrl, apiKey: secret, maxRetries: 0 })
    let text = ''
    const error = await (async () => {
      for await (const part of await client.chat.completions.create({
        model: 'slow',
        stream: true,
        messages: [{ role: 'user', content: 'rivers' }],
      })) {
        text += part.choices[0]?.delta?.content ?? ''
      }
    })().catch((caught) => caught)
    expect(error).toBeInstanceOf(Error)
    expect(text.length).toBeGreaterThan(0)
    const [row] = await settledRows(keyId)
    expect(row!.status).toBe(504)
    expect(row!.cost).toBeGreaterThan(0)
  })
})
