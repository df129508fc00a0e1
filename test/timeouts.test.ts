import { afterAll, beforeAll, expect, test } from 'bun:test'
import OpenAI from 'openai'
import { startFaultyUpstream, type FaultyUpstream } from './support/faulty-upstream.ts'
import { startTestGateway, type TestGateway } from './support/gateway.ts'
import { type StalledListener, stalledListenerAvailable, startStalledListener } from './support/stalled-listener.ts'

let blackhole: StalledListener
let healthy: FaultyUpstream
let gateway: TestGateway
let client: OpenAI

beforeAll(async () => {
  if (!stalledListenerAvailable) return
  blackhole = await startStalledListener()
  healthy = startFaultyUpstream({ kind: 'ok', text: 'reachable answer' })
  // The first-byte timer is far longer than the test's own 5 s limit: only the connect timer can end these attempts.
  const timeouts = { connect_ms: 150, first_byte_ms: 60_000 }
  gateway = await startTestGateway({
    config: {
      routing: { backoff_ms: 1, min_requests: 1000 },
      providers: [
        { name: 'blackhole', type: 'openai', base_url: `http://127.0.0.1:${blackhole.port}/v1`, timeouts },
        { name: 'healthy', type: 'openai', base_url: `${healthy.url}/v1`, timeouts },
      ],
      models: [
        { id: 'unreachable', provider: 'blackhole', price: { input: 1, output: 2 } },
        {
          id: 'either',
          price: { input: 1, output: 2 },
          routes: [
            { provider: 'blackhole', upstream_model: 'x' },
            { provider: 'healthy', upstream_model: 'y', priority: 1 },
          ],
        },
      ],
    },
  })
  client = new OpenAI({ baseURL: gateway.baseUrl, apiKey: gateway.key, maxRetries: 0 })
})

afterAll(async () => {
  if (!stalledListenerAvailable) return
  await gateway.stop()
  blackhole.close()
  healthy.stop()
})

test.skipIf(!stalledListenerAvailable)(
  'a host that never completes the TCP connect fails over after connect_ms, not first_byte_ms',
  async () => {
    const completion = await client.chat.completions.create({ model: 'either', stream: true, messages: [{ role: 'user', content: 'hi' }] })
    let text = ''
    for await (const chunk of completion) text += chunk.choices[0]?.delta?.content ?? ''
    expect(text).toBe('reachable answer')
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text()
    expect(metrics).toContain('tollgate_upstream_attempts_total{route="blackhole/x",result="connect_timeout"} 1')
  },
)

test.skipIf(!stalledListenerAvailable)(
  'with nowhere else to go, the client gets a 504 that says the upstream could not be connected to',
  async () => {
    const error = await client.chat.completions
      .create({ model: 'unreachable', messages: [{ role: 'user', content: 'hi' }] })
      .catch((caught) => caught)
    expect(error.status).toBe(504)
    expect(error.error).toMatchObject({ type: 'timeout_error', code: 'connect_timeout' })
    expect(error.message).toContain('could not be connected to within 150 ms')
  },
)
