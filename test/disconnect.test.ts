import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import OpenAI from 'openai'
import { clientWatchDelayMs } from '../src/relay/abort-scope.ts'
import { countTokens } from '../src/core/estimate.ts'
import { promptText } from '../src/operations/chat/core/prompt-text.ts'
import { startFaultyUpstream, type FaultyUpstream } from './support/faulty-upstream.ts'
import { settledRowsOf } from './support/settled-rows.ts'
import { startTestGateway, type TestGateway } from './support/gateway.ts'

let upstream: FaultyUpstream
let gateway: TestGateway
const databasePath = join(mkdtempSync(join(tmpdir(), 'tollgate-disconnect-')), 'tollgate.db')
// $1 and $2 per 1M tokens: 1000 and 2000 nano-dollars per token.
const price = { input: 1, output: 2 }
const words = [
  'Rivers',
  ' carve',
  ' valleys',
  ' over',
  ' thousands',
  ' of',
  ' years',
  ' and',
  ' carry',
  ' sediment',
  ' to',
  ' the',
  ' sea.',
]

beforeAll(async () => {
  upstream = startFaultyUpstream()
  gateway = await startTestGateway({
    databasePath,
    config: {
      routing: { max_attempts: 2, backoff_ms: 1, max_retry_after_s: 60 },
      providers: [
        { name: 'up', type: 'openai', base_url: `${upstream.url}/v1` },
        { name: 'up-ir', type: 'openai', base_url: `${upstream.url}/v1`, passthrough: false },
        { name: 'mock', type: 'mock', chunk_delay_ms: 20 },
      ],
      models: [
        { id: 'pass', provider: 'up', upstream_model: 'u', price },
        { id: 'ir', provider: 'up-ir', upstream_model: 'u', price },
        { id: 'mock-slow', provider: 'mock', price },
      ],
    },
  })
})

afterAll(async () => {
  await gateway.stop()
  upstream.stop()
})

/** A fresh key per test, so its usage rows are its own. */
async function freshClient() {
  const { secret, record } = await gateway.createKey()
  return { client: new OpenAI({ baseURL: gateway.baseUrl, apiKey: secret, maxRetries: 0 }), keyId: record.id }
}

const settledRows = (keyId: string) => settledRowsOf(gateway, databasePath, keyId)

async function waitFor<T>(probe: () => T | undefined, what: string): Promise<T> {
  for (let tries = 0; tries < 400; tries++) {
    const value = probe()
    if (value !== undefined) return value
    await Bun.sleep(5)
  }
  throw new Error(`timed out waiting for ${what}`)
}

const prompt = 'hi'
const promptTokens = await countTokens(
  promptText({ model: 'x', system: [], messages: [{ role: 'user', content: [{ type: 'text', text: prompt }] }], stream: false }),
)

describe('a client that leaves', () => {
  // The gateway starts listening for the client clientWatchDelayMs after a request begins (abort-scope.ts): a client
  // that leaves sooner is seen then, one that leaves later at once.
  const cases = [
    { when: 'at once', waitMs: 0, withinMs: clientWatchDelayMs + 100 },
    { when: 'after the gateway began listening', waitMs: clientWatchDelayMs + 50, withinMs: 100 },
  ]
  for (const model of ['pass', 'ir'])
    for (const { when, waitMs, withinMs } of cases) {
      test(`before the answer (${model}, whole, ${when}): the upstream sees the abort within ${withinMs} ms; the prompt is billed`, async () => {
        upstream.fault = { kind: 'stall-head' }
        const { client, keyId } = await freshClient()
        const leave = new AbortController()
        const before = upstream.requests.length
        const answer = client.chat.completions
          .create({ model, messages: [{ role: 'user', content: prompt }] }, { signal: leave.signal })
          .catch((error) => error)
        await waitFor(() => (upstream.requests.length > before ? true : undefined), 'the upstream request')
        await Bun.sleep(waitMs)
        const abortsBefore = upstream.aborts.length
        const leftAt = performance.now()
        leave.abort()
        expect(await answer).toBeInstanceOf(OpenAI.APIUserAbortError)
        const abort = await waitFor(() => upstream.aborts[abortsBefore], 'the upstream to see the abort')
        expect(abort.at - leftAt).toBeLessThan(withinMs)
        const [row] = await settledRows(keyId)
        expect(row).toMatchObject({ status: 499, error_type: 'client_closed', input_tokens: promptTokens, output_tokens: 0, estimated: 1 })
        expect(row!.cost).toBe(promptTokens * 1000)
      })
    }

  for (const model of ['pass', 'ir']) {
    test(`mid-stream (${model}): the upstream sees the abort within 100 ms; billed for the words produced`, async () => {
      const sent = 5
      // Role chunk + five words, then silence: exactly these five words are produced before the client leaves.
      upstream.fault = { kind: 'stall-mid', after: 1 + sent, text: words.join('') }
      const { client, keyId } = await freshClient()
      const leave = new AbortController()
      const stream = await client.chat.completions.create(
        { model, stream: true, messages: [{ role: 'user', content: prompt }] },
        { signal: leave.signal },
      )
      upstream.fault = { kind: 'ok' }
      let text = ''
      const abortsBefore = upstream.aborts.length
      let leftAt = 0
      const reading = (async () => {
        for await (const chunk of stream) {
          text += chunk.choices[0]?.delta?.content ?? ''
          if (text === words.slice(0, sent).join('')) {
            leftAt = performance.now()
            leave.abort()
          }
        }
      })().catch((error) => error)
      void reading
      await waitFor(() => (leftAt ? true : undefined), 'the client to read five words')
      const abort = await waitFor(() => upstream.aborts[abortsBefore], 'the upstream to see the abort')
      expect(abort.at - leftAt).toBeLessThan(100)
      await reading
      const rows = await settledRows(keyId)
      const outputTokens = await countTokens(words.slice(0, sent).join(''))
      expect(rows).toEqual([
        {
          status: 499,
          error_type: 'client_closed',
          input_tokens: promptTokens,
          output_tokens: outputTokens,
          cost: promptTokens * 1000 + outputTokens * 2000,
          estimated: 1,
        },
      ])
    })
  }

  test('mid-stream from the built-in mock: its generation stops too, and it is billed for what it produced', async () => {
    const { client, keyId } = await freshClient()
    const stream = await client.chat.completions.create({
      model: 'mock-slow',
      stream: true,
      messages: [{ role: 'user', content: 'count slowly for me please' }],
    })
    let text = ''
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? ''
      if (text.split(' ').length >= 3) break
    }
    const [row] = await settledRows(keyId)
    expect(row).toMatchObject({ status: 499, estimated: 1 })
    expect(row!.output_tokens).toBeGreaterThan(0)
    expect(row!.output_tokens).toBeLessThan(20)
  })

  test('while the gateway waits out a retry-after: it stops waiting at once, nothing more is sent upstream', async () => {
    upstream.queue = [{ kind: 'status', status: 429, retryAfter: 30 }]
    const { client, keyId } = await freshClient()
    const leave = new AbortController()
    const before = upstream.requests.length
    const answer = client.chat.completions
      .create({ model: 'pass', messages: [{ role: 'user', content: prompt }] }, { signal: leave.signal })
      .catch((error) => error)
    await waitFor(() => (upstream.requests.length > before ? true : undefined), 'the first attempt')
    await Bun.sleep(20)
    leave.abort()
    await answer
    // Settled long before the 30 s retry-after would have ended, and the retry never went out.
    const [row] = await settledRows(keyId)
    expect(row).toMatchObject({ status: 499, error_type: 'client_closed' })
    expect(upstream.requests.length - before).toBe(1)
  })
})

describe('billing what was produced', () => {
  for (const model of ['pass', 'ir']) {
    test(`an upstream error event after the first words is a failure whose words are paid for (${model})`, async () => {
      upstream.fault = { kind: 'error-mid', after: 3, delayMs: 30, text: words.join('') }
      const { client, keyId } = await freshClient()
      let text = ''
      const error = await (async () => {
        for await (const chunk of await client.chat.completions.create({
          model,
          stream: true,
          messages: [{ role: 'user', content: prompt }],
        })) {
          text += chunk.choices[0]?.delta?.content ?? ''
        }
      })().catch((caught) => caught)
      expect(text).toBe(words.slice(0, 2).join(''))
      expect(error).toBeInstanceOf(OpenAI.APIError)
      const [row] = await settledRows(keyId)
      // The client got two words: it pays for them (an estimate, since the upstream never reported usage).
      const outputTokens = await countTokens(words.slice(0, 2).join(''))
      expect(row).toMatchObject({
        status: 502,
        input_tokens: promptTokens,
        output_tokens: outputTokens,
        cost: promptTokens * 1000 + outputTokens * 2000,
        estimated: 1,
      })
    })
  }

  for (const model of ['pass', 'ir']) {
    test(`a completed stream without upstream usage is billed at the tokenizer estimate (${model})`, async () => {
      upstream.fault = { kind: 'ok', text: words.join(''), omitUsage: true }
      const { client, keyId } = await freshClient()
      let text = ''
      for await (const chunk of await client.chat.completions.create({
        model,
        stream: true,
        messages: [{ role: 'user', content: prompt }],
      })) {
        text += chunk.choices[0]?.delta?.content ?? ''
      }
      expect(text).toBe(words.join(''))
      const outputTokens = await countTokens(words.join(''))
      const rows = await settledRows(keyId)
      expect(rows).toEqual([
        {
          status: 200,
          error_type: null,
          input_tokens: promptTokens,
          output_tokens: outputTokens,
          cost: promptTokens * 1000 + outputTokens * 2000,
          estimated: 1,
        },
      ])
    })
  }

  test("with upstream usage, the upstream's counts are billed, not an estimate", async () => {
    upstream.fault = { kind: 'ok', text: words.join('') }
    const { client, keyId } = await freshClient()
    for await (const chunk of await client.chat.completions.create({
      model: 'ir',
      stream: true,
      messages: [{ role: 'user', content: prompt }],
    }))
      void chunk
    const rows = await settledRows(keyId)
    expect(rows).toEqual([{ status: 200, error_type: null, input_tokens: 11, output_tokens: 7, cost: 11 * 1000 + 7 * 2000, estimated: 0 }])
  })
})
