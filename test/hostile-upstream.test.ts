import { afterAll, beforeAll, expect, test } from 'bun:test'
import { startTestGateway, type TestGateway } from './support/gateway.ts'
import { type Hostility, startHostileUpstream } from './support/hostile-upstream.ts'

/**
 * An upstream that sends without end — an SSE line that never ends, a 50 MB JSON body, a 50 MB error body — meets
 * the `limits:` caps: the attempt ends with a 502 `upstream_malformed` (or the refusal, its first bytes only) in the
 * client's protocol shape, and the gateway reads a bounded amount of it, in time.
 */
const upstream = startHostileUpstream({ kind: 'endless-line' })
let gateway: TestGateway

beforeAll(async () => {
  gateway = await startTestGateway({
    config: {
      limits: { upstream_event_bytes: 1024 * 1024, upstream_body_bytes: 4 * 1024 * 1024, upstream_error_bytes: 4096 },
      routing: { max_attempts: 2, backoff_ms: 1, backoff_max_ms: 1, min_requests: 100000 },
      providers: [{ name: 'hostile', type: 'openai', base_url: `${upstream.url}/v1`, api_key: 'sk-up' }],
      models: [{ id: 'hostile', provider: 'hostile', price: { input: 1, output: 2 } }],
    },
  })
})
afterAll(async () => {
  await gateway.stop()
  upstream.stop()
})

async function ask(hostility: Hostility, protocol: 'chat' | 'messages', stream: boolean) {
  upstream.hostility = hostility
  const written = upstream.written
  const started = performance.now()
  const response =
    protocol === 'chat'
      ? await fetch(`${gateway.baseUrl}/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${gateway.key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'hostile', stream, messages: [{ role: 'user', content: 'hi' }] }),
        })
      : await fetch(`${gateway.url}/v1/messages`, {
          method: 'POST',
          headers: { 'x-api-key': gateway.key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'hostile', max_tokens: 50, stream, messages: [{ role: 'user', content: 'hi' }] }),
        })
  const text = await response.text()
  return { status: response.status, text, json: () => JSON.parse(text), ms: performance.now() - started, read: upstream.written - written }
}

for (const protocol of ['chat', 'messages'] as const) {
  const path = protocol === 'chat' ? 'passthrough' : 'translated'
  test(`${path}: an SSE line that never ends is cut at upstream_event_bytes with a 502, quickly`, async () => {
    const result = await ask({ kind: 'endless-line' }, protocol, true)
    expect(result.status).toBe(502)
    if (protocol === 'chat') expect(result.json().error.code).toBe('upstream_malformed')
    else expect(result.json()).toMatchObject({ type: 'error', error: { type: 'api_error' } })
    expect(result.ms).toBeLessThan(3000)
    // Two attempts, each stopped soon after its 1 MB cap (what sits in socket buffers aside).
    expect(result.read).toBeLessThan(2 * 8 * 1024 * 1024)
  }, 20_000)
}

for (const protocol of ['chat', 'messages'] as const) {
  const path = protocol === 'chat' ? 'passthrough' : 'translated'
  test(`${path}: endless small events that never begin an answer are cut at upstream_body_bytes with a 502, retried`, async () => {
    const requests = upstream.requests
    const result = await ask({ kind: 'endless-prelude' }, protocol, true)
    expect(result.status).toBe(502)
    if (protocol === 'chat') expect(result.json().error.code).toBe('upstream_malformed')
    else
      expect(result.json()).toMatchObject({
        type: 'error',
        error: { type: 'api_error', message: expect.stringContaining('without beginning its answer') },
      })
    // Failed before the answer began: tried again (max_attempts 2), as any such failure.
    expect(upstream.requests - requests).toBe(2)
    // Each attempt stopped soon after its 4 MB of held events.
    expect(result.read).toBeLessThan(2 * 24 * 1024 * 1024)
  }, 20_000)
}

for (const chunked of [false, true]) {
  test(`a 50 MB JSON answer (${chunked ? 'chunked' : 'with its length'}) is refused at upstream_body_bytes with a 502`, async () => {
    for (const protocol of ['chat', 'messages'] as const) {
      const result = await ask({ kind: 'huge-json', bytes: 50 * 1024 * 1024, chunked }, protocol, false)
      expect(result.status).toBe(502)
      expect(result.text.length).toBeLessThan(2000)
      expect(result.read).toBeLessThan(2 * 12 * 1024 * 1024)
    }
  }, 20_000)
}

test('a 50 MB error body is read to upstream_error_bytes only, and never relayed whole', async () => {
  for (const protocol of ['chat', 'messages'] as const) {
    const result = await ask({ kind: 'huge-error', bytes: 50 * 1024 * 1024, status: 500 }, protocol, false)
    expect(result.status).toBeGreaterThanOrEqual(500)
    expect(result.text.length).toBeLessThan(8 * 1024)
    expect(result.read).toBeLessThan(2 * 8 * 1024 * 1024)
  }
}, 20_000)

test('no usage is billed for answers that never began', async () => {
  const account = await gateway.settled()
  expect(account.balance).toBe(gateway.account.balance)
})
