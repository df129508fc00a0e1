import { afterAll, beforeAll, expect, test } from 'bun:test'
import OpenAI from 'openai'
import type { Logger } from '../src/core/logger.ts'
import { startFaultyUpstream, type FaultyUpstream } from './support/faulty-upstream.ts'
import { startTestGateway, type TestGateway } from './support/gateway.ts'

let flaky: FaultyUpstream
let steady: FaultyUpstream
let gateway: TestGateway
let client: OpenAI
const logs: { level: string; message: string; fields: Record<string, unknown> }[] = []
const logger: Logger = {
  info: (fields, message) => logs.push({ level: 'info', message, fields }),
  warn: (fields, message) => logs.push({ level: 'warn', message, fields }),
  error: (fields, message) => logs.push({ level: 'error', message, fields }),
}
const cooldownMs = 300

beforeAll(async () => {
  flaky = startFaultyUpstream({ kind: 'status', status: 500 })
  steady = startFaultyUpstream({ kind: 'ok', text: 'steady answer' })
  gateway = await startTestGateway({
    logger,
    config: {
      routing: { max_attempts: 2, backoff_ms: 1, min_requests: 2, failure_ratio: 0.5, cooldown_s: cooldownMs / 1000 },
      providers: [
        { name: 'flaky', type: 'openai', base_url: `${flaky.url}/v1` },
        { name: 'steady', type: 'openai', base_url: `${steady.url}/v1` },
      ],
      models: [
        {
          id: 'pair',
          price: { input: 1, output: 2 },
          routes: [
            { provider: 'flaky', upstream_model: 'x' },
            { provider: 'steady', upstream_model: 'y', priority: 1 },
          ],
        },
      ],
    },
  })
  client = new OpenAI({ baseURL: gateway.baseUrl, apiKey: gateway.key, maxRetries: 0 })
})

afterAll(async () => {
  await gateway.stop()
  flaky.stop()
  steady.stop()
})

const ask = async () =>
  (await client.chat.completions.create({ model: 'pair', messages: [{ role: 'user', content: 'hi' }] })).choices[0]!.message.content
const metrics = async () => (await fetch(`${gateway.url}/metrics`)).text()
const routeState = async (route: string) => {
  const text = await metrics()
  return /state="([a-z-]+)"\} 1/.exec(
    text
      .split('\n')
      .filter((line) => line.startsWith(`tollgate_route_state{route="${route}"`))
      .join('\n'),
  )?.[1]
}

test('a failing route is taken out, skipped during its cooldown, probed after it, and comes back', async () => {
  // Two failures in two attempts trip flaky/x; the client still gets answers from the steady route.
  expect(await ask()).toBe('steady answer')
  expect(await ask()).toBe('steady answer')
  expect(flaky.requests.length).toBe(2)
  expect(await routeState('flaky/x')).toBe('open')
  expect(logs.some((line) => line.level === 'warn' && line.message.startsWith('route open') && line.fields.route === 'flaky/x')).toBe(true)

  // Open: requests go straight to the steady route, the flaky one is not even tried.
  for (let index = 0; index < 3; index++) expect(await ask()).toBe('steady answer')
  expect(flaky.requests.length).toBe(2)

  // The status command shows the same, from a separate process asking the running gateway.
  // Spawned asynchronously: this process serves the gateway the CLI is asking.
  const child = Bun.spawn(['bun', 'src/main.ts', 'status', '--url', gateway.url, '--json'], { stdout: 'pipe', stderr: 'pipe' })
  expect(await child.exited).toBe(0)
  expect(JSON.parse(await new Response(child.stdout).text()).routes).toContainEqual(
    expect.objectContaining({ route: 'flaky/x', state: 'open', trips: 1 }),
  )

  // After the cooldown one request probes it; the upstream has recovered, so the route closes again.
  flaky.fault = { kind: 'ok', text: 'flaky is back' }
  await Bun.sleep(cooldownMs + 50)
  expect(await ask()).toBe('flaky is back')
  expect(flaky.requests.length).toBe(3)
  expect(await routeState('flaky/x')).toBe('closed')
  expect(logs.some((line) => line.message.startsWith('route closed') && line.fields.route === 'flaky/x')).toBe(true)
  expect(await ask()).toBe('flaky is back')

  const text = await metrics()
  expect(text).toContain('tollgate_route_trips_total{route="flaky/x"} 1')
  expect(text).toContain('tollgate_upstream_attempts_total{route="flaky/x",result="upstream"} 2')
  expect(text).toMatch(/tollgate_requests_total\{model="pair",provider="steady",status="200"\} 5/)
})

test('a probe that fails sends the route back to cooldown, and the probing request is still answered', async () => {
  flaky.fault = { kind: 'status', status: 503 }
  expect(await ask()).toBe('steady answer')
  expect(await ask()).toBe('steady answer')
  expect(await routeState('flaky/x')).toBe('open')
  const before = flaky.requests.length
  await Bun.sleep(cooldownMs + 50)
  expect(await ask()).toBe('steady answer') // the probe failed; the same request went on to the steady route
  expect(flaky.requests.length).toBe(before + 1)
  expect(await routeState('flaky/x')).toBe('open')
  expect(await ask()).toBe('steady answer')
  expect(flaky.requests.length).toBe(before + 1)
})
