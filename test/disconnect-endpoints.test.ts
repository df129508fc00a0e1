import { afterAll, beforeAll, expect, test } from 'bun:test'
import { clientWatchDelayMs } from '../src/relay/abort-scope.ts'
import { startFaultyUpstream, type FaultyUpstream } from './support/faulty-upstream.ts'
import { startTestGateway, type TestGateway } from './support/gateway.ts'

/**
 * Every client protocol, whole and streamed: a client that hangs up makes the gateway hang up on the upstream (the
 * upstream sees its connection close within 100 ms of a streamed answer's client leaving; for a whole answer the
 * gateway listens from clientWatchDelayMs after the request began, so within that and 100 ms more) and the request is
 * recorded as the client's leaving.
 */
let upstream: FaultyUpstream
let gateway: TestGateway

beforeAll(async () => {
  upstream = startFaultyUpstream()
  gateway = await startTestGateway({
    config: {
      providers: [{ name: 'up', type: 'openai', base_url: `${upstream.url}/v1` }],
      models: [{ id: 'slowpoke', provider: 'up', upstream_model: 'u', price: { input: 1, output: 2 } }],
    },
  })
})

afterAll(async () => {
  await gateway.stop()
  upstream.stop()
})

type Endpoint = (secret: string, stream: boolean) => { path: string; headers: Record<string, string>; body: unknown }

const endpoints: Record<string, Endpoint> = {
  'OpenAI chat': (secret, stream) => ({
    path: '/v1/chat/completions',
    headers: { authorization: `Bearer ${secret}` },
    body: { model: 'slowpoke', stream, messages: [{ role: 'user', content: 'hi' }] },
  }),
  'OpenAI Responses': (secret, stream) => ({
    path: '/v1/responses',
    headers: { authorization: `Bearer ${secret}` },
    body: { model: 'slowpoke', stream, input: 'hi' },
  }),
  'Anthropic Messages': (secret, stream) => ({
    path: '/v1/messages',
    headers: { 'x-api-key': secret, 'anthropic-version': '2023-06-01' },
    body: { model: 'slowpoke', max_tokens: 50, stream, messages: [{ role: 'user', content: 'hi' }] },
  }),
  Gemini: (secret, stream) => ({
    path: stream ? '/v1beta/models/slowpoke:streamGenerateContent?alt=sse' : '/v1beta/models/slowpoke:generateContent',
    headers: { 'x-goog-api-key': secret },
    body: { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] },
  }),
}

async function waitFor<T>(probe: () => T | undefined | Promise<T | undefined>, what: string): Promise<T> {
  for (let tries = 0; tries < 300; tries++) {
    const value = await probe()
    if (value !== undefined) return value
    await Bun.sleep(5)
  }
  throw new Error(`timed out waiting for ${what}`)
}

for (const [name, endpoint] of Object.entries(endpoints)) {
  for (const stream of [false, true]) {
    const withinMs = stream ? 100 : clientWatchDelayMs + 100
    test(`${name}, ${stream ? 'streamed' : 'whole'}: the upstream sees the client leave within ${withinMs} ms`, async () => {
      // Whole: the upstream never answers. Streamed: it sends a first word, then goes quiet.
      upstream.fault = stream ? { kind: 'stall-mid', after: 2, text: 'first then-nothing' } : { kind: 'stall-head' }
      const { secret, record } = await gateway.createKey()
      const request = endpoint(secret, stream)
      const leave = new AbortController()
      const before = upstream.requests.length
      const abortsBefore = upstream.aborts.length
      const sent = fetch(gateway.url + request.path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...request.headers },
        body: JSON.stringify(request.body),
        signal: leave.signal,
      })
      if (stream) {
        const response = await sent
        expect(response.status).toBe(200)
        const first = await response.body!.getReader().read()
        expect(new TextDecoder().decode(first.value)).toContain('first')
      } else {
        sent.catch(() => {})
        await waitFor(() => (upstream.requests.length > before ? true : undefined), 'the upstream request')
      }
      const leftAt = performance.now()
      leave.abort()
      const abort = await waitFor(() => upstream.aborts[abortsBefore], 'the upstream to see the abort')
      expect(abort.at - leftAt).toBeLessThan(withinMs)
      const usage = await waitFor(async () => {
        await gateway.gateway.services.ledger.drain()
        const summary = await gateway.gateway.services.store.usage.summarize({ keyId: record.id })
        return summary.requests > 0 ? summary : undefined
      }, 'the usage row')
      expect(usage.requests).toBe(1)
    })
  }
}
