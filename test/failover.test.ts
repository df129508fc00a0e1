import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import OpenAI from 'openai'
import { startTestGateway, type TestGateway } from './support/gateway.ts'
import { type Fault, startFaultyUpstream, type FaultyUpstream } from './support/faulty-upstream.ts'

let primary: FaultyUpstream
let secondary: FaultyUpstream
let gateway: TestGateway
let client: OpenAI

const timeouts = { connect_ms: 2000, first_byte_ms: 400, idle_ms: 400, total_ms: 10_000 }

beforeAll(async () => {
  primary = startFaultyUpstream()
  secondary = startFaultyUpstream({ kind: 'ok', text: 'Hello from the secondary' })
  gateway = await startTestGateway({
    config: {
      // A breaker that never trips here: these tests are about single requests (circuit-breaker.test.ts covers tripping).
      routing: { max_attempts: 3, backoff_ms: 5, min_requests: 1000 },
      providers: [
        { name: 'primary', type: 'openai', base_url: `${primary.url}/v1`, timeouts },
        { name: 'primary-ir', type: 'openai', base_url: `${primary.url}/v1`, timeouts, passthrough: false },
        { name: 'secondary', type: 'openai', base_url: `${secondary.url}/v1`, timeouts },
        { name: 'secondary-ir', type: 'openai', base_url: `${secondary.url}/v1`, timeouts, passthrough: false },
        { name: 'primary-short', type: 'openai', base_url: `${primary.url}/v1`, timeouts: { ...timeouts, total_ms: 300 } },
      ],
      models: [
        {
          id: 'duo',
          price: { input: 1, output: 2 },
          routes: [
            { provider: 'primary', upstream_model: 'p' },
            { provider: 'secondary', upstream_model: 's', priority: 1 },
          ],
        },
        {
          id: 'duo-ir',
          price: { input: 1, output: 2 },
          routes: [
            { provider: 'primary-ir', upstream_model: 'p' },
            { provider: 'secondary-ir', upstream_model: 's', priority: 1 },
          ],
        },
        { id: 'solo', provider: 'primary', upstream_model: 'p', price: { input: 1, output: 2 } },
        { id: 'short', provider: 'primary-short', upstream_model: 'p', price: { input: 1, output: 2 } },
        { id: 'with-fallback', provider: 'primary', upstream_model: 'p', fallbacks: ['backup'], price: { input: 1, output: 2 } },
        { id: 'backup', provider: 'secondary', upstream_model: 'b', price: { input: 3, output: 4 } },
      ],
    },
  })
  client = new OpenAI({ baseURL: gateway.baseUrl, apiKey: gateway.key, maxRetries: 0 })
})

afterAll(async () => {
  await gateway.stop()
  primary.stop()
  secondary.stop()
})

afterEach(() => {
  primary.queue = []
  primary.fault = { kind: 'ok' }
})

async function streamText(model: string): Promise<string> {
  const stream = await client.chat.completions.create({ model, stream: true, messages: [{ role: 'user', content: 'hi' }] })
  let text = ''
  for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? ''
  return text
}

const faults: [string, Fault][] = [
  ['HTTP 500', { kind: 'status', status: 500 }],
  ['HTTP 429 with retry-after', { kind: 'status', status: 429, retryAfter: 30 }],
  ['a stall before the first byte', { kind: 'stall-head' }],
  ['a connection cut before answering', { kind: 'cut-head' }],
  ['garbage bytes', { kind: 'garbage' }],
  ['a stall before the first token (mid-body for a whole answer)', { kind: 'stall-mid', after: 1 }],
  ['a cut before the first token (mid-body for a whole answer)', { kind: 'cut-mid', after: 1 }],
]

for (const model of ['duo', 'duo-ir']) {
  describe(`failover (${model === 'duo' ? 'passthrough' : 'translated'})`, () => {
    for (const [name, fault] of faults) {
      for (const stream of [false, true]) {
        test(`${name}, ${stream ? 'streamed' : 'whole'}: the client gets the healthy route's answer`, async () => {
          primary.fault = fault
          const before = { primary: primary.requests.length, secondary: secondary.requests.length }
          const text = stream
            ? await streamText(model)
            : (await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] })).choices[0]!.message.content
          expect(text).toBe('Hello from the secondary')
          expect(primary.requests.length - before.primary).toBe(1)
          expect(secondary.requests.length - before.secondary).toBe(1)
          expect(secondary.requests.at(-1)!.body.model).toBe('s')
        })
      }
    }
  })
}

describe('retries on a single route', () => {
  test('a 500 then success: retried on the same route, the client never sees the 500', async () => {
    primary.queue = [
      { kind: 'status', status: 500 },
      { kind: 'status', status: 503 },
    ]
    const before = primary.requests.length
    const completion = await client.chat.completions.create({ model: 'solo', messages: [{ role: 'user', content: 'hi' }] })
    expect(completion.choices[0]!.message.content).toBe('Hello from upstream')
    expect(primary.requests.length - before).toBe(3)
  })

  test('retry-after is honoured before retrying the same route', async () => {
    primary.queue = [{ kind: 'status', status: 429, retryAfter: 1 }]
    const before = primary.requests.length
    await client.chat.completions.create({ model: 'solo', messages: [{ role: 'user', content: 'hi' }] })
    const [first, second] = primary.requests.slice(before)
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(1000)
  })

  test('attempts are bounded: after max_attempts the last failure reaches the client in its own shape', async () => {
    primary.fault = { kind: 'status', status: 502 }
    const before = primary.requests.length
    const error = await client.chat.completions
      .create({ model: 'solo', messages: [{ role: 'user', content: 'hi' }] })
      .catch((caught) => caught)
    expect(error).toBeInstanceOf(OpenAI.APIError)
    expect(error.status).toBe(502)
    expect(primary.requests.length - before).toBe(3)
  })

  test('a 429 asking for longer than max_retry_after_s is passed on with its retry-after, not waited out', async () => {
    primary.fault = { kind: 'status', status: 429, retryAfter: 120 }
    const before = primary.requests.length
    const error = await client.chat.completions
      .create({ model: 'solo', messages: [{ role: 'user', content: 'hi' }] })
      .catch((caught) => caught)
    expect(error).toBeInstanceOf(OpenAI.RateLimitError)
    expect(error.headers.get('retry-after')).toBe('120')
    expect(primary.requests.length - before).toBe(1)
  })

  test("the client's own mistake (400) is not retried anywhere", async () => {
    primary.fault = { kind: 'status', status: 400 }
    const before = { primary: primary.requests.length, secondary: secondary.requests.length }
    const error = await client.chat.completions
      .create({ model: 'duo', messages: [{ role: 'user', content: 'hi' }] })
      .catch((caught) => caught)
    expect(error).toBeInstanceOf(OpenAI.BadRequestError)
    expect(primary.requests.length - before.primary).toBe(1)
    expect(secondary.requests.length - before.secondary).toBe(0)
  })

  test('a timeout with nowhere else to go ends as a 504', async () => {
    primary.fault = { kind: 'stall-head' }
    const error = await client.chat.completions
      .create({ model: 'solo', messages: [{ role: 'user', content: 'hi' }] })
      .catch((caught) => caught)
    expect(error.status).toBe(504)
    expect(error.error.type).toBe('timeout_error')
  })
})

describe('after the first byte', () => {
  test('a stream cut after its first tokens is not retried: it ends with an error event', async () => {
    // Paced, so the first tokens have surely gone out before the cut (sent together, the gateway would see the cut
    // before passing anything on, and rightly fail over instead).
    primary.fault = { kind: 'cut-mid', after: 3, delayMs: 30 }
    const before = { primary: primary.requests.length, secondary: secondary.requests.length }
    let text = ''
    const error = await (async () => {
      for await (const chunk of await client.chat.completions.create({
        model: 'duo',
        stream: true,
        messages: [{ role: 'user', content: 'hi' }],
      })) {
        text += chunk.choices[0]?.delta?.content ?? ''
      }
    })().catch((caught) => caught)
    expect(text).toBe('Hello from')
    expect(error).toBeInstanceOf(OpenAI.APIError)
    expect(primary.requests.length - before.primary).toBe(1)
    expect(secondary.requests.length - before.secondary).toBe(0)
  })

  test('a stream that goes quiet mid-answer ends with a timeout error event after idle_ms', async () => {
    primary.fault = { kind: 'stall-mid', after: 3 }
    const error = await streamText('duo-ir').catch((caught) => caught)
    expect(error).toBeInstanceOf(OpenAI.APIError)
    expect(String(error.message)).toContain('went quiet')
  })

  test('an answer still streaming when total_ms runs out ends with a timeout error event', async () => {
    primary.fault = { kind: 'ok', text: 'one two three four five six seven eight nine ten', delayMs: 100 }
    let text = ''
    const error = await (async () => {
      for await (const chunk of await client.chat.completions.create({
        model: 'short',
        stream: true,
        messages: [{ role: 'user', content: 'hi' }],
      })) {
        text += chunk.choices[0]?.delta?.content ?? ''
      }
    })().catch((caught) => caught)
    expect(text.length).toBeGreaterThan(0)
    expect(text).not.toContain('ten')
    expect(error).toBeInstanceOf(OpenAI.APIError)
    expect(String(error.message)).toContain('did not finish within 300 ms')
  })
})

describe('fallback models', () => {
  test("when the model's routes fail, its fallback model answers, billed at the fallback's price", async () => {
    primary.fault = { kind: 'status', status: 503 }
    const before = await gateway.settled()
    const completion = await client.chat.completions.create({ model: 'with-fallback', messages: [{ role: 'user', content: 'hi' }] })
    expect(completion.choices[0]!.message.content).toBe('Hello from the secondary')
    expect(secondary.requests.at(-1)!.body.model).toBe('b')
    const after = await gateway.settled()
    // 11 input at $3/M + 7 output at $4/M (the fallback's prices), not $1/$2.
    expect(before.balance - after.balance).toBe(11 * 3000 + 7 * 4000)
  })
})
