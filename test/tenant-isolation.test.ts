import { afterEach, expect, test } from 'bun:test'
import OpenAI from 'openai'
import type { Logger } from '../src/core/logger.ts'
import { startFaultyUpstream, type FaultyUpstream } from './support/faulty-upstream.ts'
import { startTestGateway, type TestGateway } from './support/gateway.ts'

/**
 * One tenant's requests must never take a route away from another. A body nested 45,000 deep overflowed the gateway's
 * own JSON.stringify inside the upstream attempt, which counted as a route failure: two such requests opened the
 * route and every other account got 503 no_healthy_route.
 */
let upstream: FaultyUpstream
let gateway: TestGateway
const logs: { level: string; message: string; fields: Record<string, unknown> }[] = []
const logger: Logger = {
  info: (fields, message) => logs.push({ level: 'info', message, fields }),
  warn: (fields, message) => logs.push({ level: 'warn', message, fields }),
  error: (fields, message) => logs.push({ level: 'error', message, fields }),
}

afterEach(async () => {
  await gateway?.stop()
  upstream?.stop()
  logs.length = 0
})

async function start(limits?: Record<string, unknown>) {
  upstream = startFaultyUpstream({ kind: 'ok', text: 'still here' })
  gateway = await startTestGateway({
    logger,
    config: {
      ...(limits ? { limits } : {}),
      routing: { max_attempts: 3, backoff_ms: 1, min_requests: 2, failure_ratio: 0.5, cooldown_s: 30 },
      providers: [{ name: 'shared', type: 'openai', base_url: `${upstream.url}/v1` }],
      models: [{ id: 'shared-model', provider: 'shared', upstream_model: 'up', price: { input: 1, output: 2 } }],
    },
  })
  const other = await gateway.createAccount('account-b', '10')
  const b = await gateway.createKey({ accountId: other.id })
  return {
    victim: new OpenAI({ baseURL: gateway.baseUrl, apiKey: b.secret, maxRetries: 0 }),
  }
}

/**
 * A ~90 KB tool schema nested 45,000 levels deep, as the attacker sent it: written as text, because no SDK can
 * serialize it (their own JSON.stringify overflows first).
 */
async function deepRequest(secret: string): Promise<{ status: number; body: any }> {
  const schema = `{"type":"object","properties":{},"deep":${'['.repeat(45_000)}${']'.repeat(45_000)}}`
  const body = `{"model":"shared-model","max_tokens":10,"messages":[{"role":"user","content":"hi"}],"tools":[{"name":"deep","input_schema":${schema}}]}`
  const response = await fetch(`${gateway.url}/v1/messages`, {
    method: 'POST',
    body,
    headers: { 'x-api-key': secret, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
  })
  return { status: response.status, body: await response.json() }
}

const routeState = async () =>
  (
    (await (await fetch(`${gateway.url}/status`)).json()) as { routes: { route: string; state: string; window_failures: number }[] }
  ).routes.find((route) => route.route === 'shared/up')

test('JSON nested deeper than limits.json_depth is a 400 naming the limit, and another account keeps its route', async () => {
  const { victim } = await start()
  for (let index = 0; index < 4; index++) {
    const { status, body } = await deepRequest(gateway.key)
    expect(status).toBe(400)
    expect(body.type).toBe('error')
    expect(body.error.type).toBe('invalid_request_error')
    expect(body.error.message).toContain('nested at most 128 levels')
  }
  const answer = await victim.chat.completions.create({ model: 'shared-model', messages: [{ role: 'user', content: 'hello' }] })
  expect(answer.choices[0]!.message.content).toBe('still here')
  expect(await routeState()).toMatchObject({ state: 'closed', window_failures: 0 })
  expect(upstream.requests.length).toBe(1)
})

test('a failure inside the gateway is not counted against the route, nor retried', async () => {
  // With the depth check lifted, the deep schema overflows the upstream encoder's JSON.stringify: the gateway's fault.
  const { victim } = await start({ json_depth: 100_000 })
  for (let index = 0; index < 4; index++) expect((await deepRequest(gateway.key)).status).toBe(500)
  const answer = await victim.chat.completions.create({ model: 'shared-model', messages: [{ role: 'user', content: 'hello' }] })
  expect(answer.choices[0]!.message.content).toBe('still here')
  expect(await routeState()).toMatchObject({ state: 'closed', window_failures: 0 })
  // Each failed once, with no retry: one line per request says what happened, none says the route was to blame.
  expect(logs.filter((line) => line.message === 'unexpected error').length).toBe(4)
  expect(logs.filter((line) => line.message === 'upstream attempt failed').every((line) => line.fields.will_retry === false)).toBe(true)
  expect(logs.some((line) => line.message.startsWith('route open'))).toBe(false)
})

test('limits.json_depth is read from the config, and the default stands when it is absent', async () => {
  const { parseConfig } = await import('../src/config/load.ts')
  const base = { providers: [{ name: 'mock', type: 'mock' }], models: [] }
  expect(parseConfig(base).limits.jsonDepth).toBe(128)
  expect(parseConfig({ ...base, limits: { json_depth: 40 } }).limits.jsonDepth).toBe(40)
  expect(() => parseConfig({ ...base, limits: { json_dept: 40 } })).toThrow()
})
