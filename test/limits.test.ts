import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { parseUsd } from '../src/core/money.ts'
import { makeWorkspace, runCli } from './support/cli.ts'
import { startTestGateway, type TestGateway } from './support/gateway.ts'

let gateway: TestGateway

beforeAll(async () => {
  gateway = await startTestGateway({
    config: {
      providers: [
        { name: 'mock', type: 'mock' },
        { name: 'slow', type: 'mock', chunk_delay_ms: 40 },
      ],
      models: [
        { id: 'mock-1', provider: 'mock', price: { input: 1, output: 2 }, max_output_tokens: 10 },
        { id: 'mock-slow', provider: 'slow', price: { input: 1, output: 2 }, max_output_tokens: 50 },
      ],
    },
  })
})

afterAll(() => gateway.stop())

function send(secret: string, model = 'mock-1', content = 'hello there', stream = false) {
  return fetch(`${gateway.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, stream, messages: [{ role: 'user', content }] }),
  }).then(async (response) => ({ status: response.status, headers: response.headers, body: await response.text() }))
}

const count = (results: { status: number }[], status: number) => results.filter((result) => result.status === status).length

describe('per-key limits, exact under concurrency', () => {
  test('requests per minute: of 30 parallel requests exactly rpm are admitted, the rest get 429 with rate-limit headers', async () => {
    const { secret } = await gateway.createKey({ rpm: 7 })
    const results = await Promise.all(Array.from({ length: 30 }, () => send(secret)))
    expect(count(results, 200)).toBe(7)
    expect(count(results, 429)).toBe(23)
    const refused = results.find((result) => result.status === 429)!
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    expect(refused.headers.get('x-ratelimit-limit-requests')).toBe('7')
    expect(refused.headers.get('x-ratelimit-remaining-requests')).toBe('0')
    expect(refused.headers.get('x-ratelimit-reset-requests')).toMatch(/^(\d+m)?\d+(\.\d+)?s$/)
    expect(JSON.parse(refused.body).error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded' })
    // Admitted answers carry the key's state too, as OpenAI's do.
    const admitted = results
      .filter((result) => result.status === 200)
      .map((result) => Number(result.headers.get('x-ratelimit-remaining-requests')))
    expect(admitted.sort()).toEqual([0, 1, 2, 3, 4, 5, 6])
  })

  test('the official SDK sees a RateLimitError with the headers', async () => {
    const { secret } = await gateway.createKey({ rpm: 1 })
    const client = new OpenAI({ baseURL: gateway.baseUrl, apiKey: secret, maxRetries: 0 })
    await client.chat.completions.create({ model: 'mock-1', messages: [{ role: 'user', content: 'hi' }] })
    const error = await client.chat.completions
      .create({ model: 'mock-1', messages: [{ role: 'user', content: 'hi' }] })
      .catch((caught) => caught)
    expect(error).toBeInstanceOf(OpenAI.RateLimitError)
    expect(error.headers.get('x-ratelimit-limit-requests')).toBe('1')
    expect(error.headers.get('retry-after')).not.toBeNull()
  })

  test('an Anthropic client gets its own 429: rate_limit_error with anthropic-ratelimit-* and retry-after', async () => {
    const { secret } = await gateway.createKey({ rpm: 1, tpm: 100_000 })
    const client = new Anthropic({ baseURL: gateway.url, apiKey: secret, maxRetries: 0 })
    const ask = () => client.messages.create({ model: 'mock-1', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] })
    const first = await ask().withResponse()
    expect(first.response.headers.get('anthropic-ratelimit-requests-remaining')).toBe('0')
    const error = await ask().catch((caught) => caught)
    expect(error).toBeInstanceOf(Anthropic.RateLimitError)
    expect(error.error.error.type).toBe('rate_limit_error')
    expect(error.headers.get('retry-after')).not.toBeNull()
    expect(error.headers.get('anthropic-ratelimit-requests-limit')).toBe('1')
    expect(error.headers.get('anthropic-ratelimit-requests-remaining')).toBe('0')
    expect(Date.parse(error.headers.get('anthropic-ratelimit-requests-reset'))).toBeGreaterThan(Date.now())
    expect(error.headers.get('anthropic-ratelimit-tokens-limit')).toBe('100000')
  })

  test('concurrency: of 12 parallel streams exactly 3 run; a slot frees when one ends', async () => {
    const { secret } = await gateway.createKey({ concurrency: 3 })
    const results = await Promise.all(Array.from({ length: 12 }, () => send(secret, 'mock-slow', 'tell me something', true)))
    expect(count(results, 200)).toBe(3)
    expect(count(results, 429)).toBe(9)
    expect(JSON.parse(results.find((result) => result.status === 429)!.body).error.code).toBe('concurrency_limit_exceeded')
    expect((await send(secret)).status).toBe(200)
  })

  test('tokens per minute: in-flight requests reserve their prompt, so no more are admitted than the limit allows', async () => {
    const { secret } = await gateway.createKey({ tpm: 120 })
    // 200 characters ≈ 50 tokens each: two fit in 120, a third would not.
    const prompt = 'x'.repeat(200)
    const results = await Promise.all(Array.from({ length: 10 }, () => send(secret, 'mock-slow', prompt, true)))
    expect(count(results, 200)).toBe(2)
    const refused = results.find((result) => result.status === 429)!
    expect(refused.headers.get('x-ratelimit-limit-tokens')).toBe('120')
    expect(Number(refused.headers.get('x-ratelimit-remaining-tokens'))).toBeLessThan(50)
  })
})

describe('budgets and expiry', () => {
  test('a budget is never exceeded by parallel requests, and a spent budget is refused with 403', async () => {
    const budget = parseUsd('0.0005')
    const { secret, record } = await gateway.createKey({ budget })
    const results = await Promise.all(Array.from({ length: 40 }, () => send(secret)))
    const refused = results.filter((result) => result.status === 403)
    expect(count(results, 200)).toBeGreaterThan(0)
    expect(refused.length).toBeGreaterThan(0)
    expect(JSON.parse(refused[0]!.body).error).toMatchObject({ code: 'budget_exceeded', type: 'insufficient_quota' })
    await gateway.settled()
    const key = (await gateway.gateway.services.store.keys.findById(record.id))!
    const usage = await gateway.gateway.services.store.usage.summarize({ keyId: record.id })
    expect(key.spent).toBeLessThanOrEqual(budget)
    expect(key.spent).toBe(usage.spent)
    // Every request left a row; the refused ones cost nothing.
    expect(usage.requests).toBe(40)
    expect((await gateway.gateway.services.store.usage.summarize({ keyId: record.id, statusMin: 200, statusMax: 299 })).requests).toBe(
      count(results, 200),
    )
  })

  test('an expired key gets 401', async () => {
    const { secret } = await gateway.createKey({ expiresAt: Date.now() - 1000 })
    const client = new OpenAI({ baseURL: gateway.baseUrl, apiKey: secret, maxRetries: 0 })
    const error = await client.chat.completions
      .create({ model: 'mock-1', messages: [{ role: 'user', content: 'hi' }] })
      .catch((caught) => caught)
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError)
    expect(error.error.code).toBe('expired_api_key')
  })

  test('the CLI sets every limit at key creation and shows them in key list', () => {
    const { config } = makeWorkspace()
    const run = (...args: string[]) => runCli(['bun', 'src/main.ts'], [...args, '--config', config])
    expect(run('migrate').code).toBe(0) // only serve and migrate create a database
    expect(run('account', 'create', 'limited', '--balance', '5').code).toBe(0)
    const created = run(
      'key',
      'create',
      '--account',
      'limited',
      '--rpm',
      '60',
      '--tpm',
      '10000',
      '--concurrency',
      '4',
      '--budget',
      '1.25',
      '--expires',
      '2031-02-03T04:05:06Z',
      '--json',
    )
    expect(created.code).toBe(0)
    const [listed] = run('key', 'list', '--json').json()
    expect(listed).toMatchObject({
      rpm: 60,
      tpm: 10000,
      concurrency: 4,
      budget_usd: '1.25',
      spent_usd: '0.00',
      expires_at: '2031-02-03T04:05:06.000Z',
    })
    expect(run('key', 'list').stdout).toContain('rpm=60 tpm=10000 conc=4 budget=$1.25 expires=2031-02-03T04:05:06Z')
    expect(run('key', 'create', '--account', 'limited', '--rpm', 'lots').stderr).toContain('--rpm must be a whole number')
  })
})
