import { afterAll, beforeAll, expect, test } from 'bun:test'
import { chatCompletion } from './support/openai-upstream.ts'
import { startTestGateway, type TestGateway } from './support/gateway.ts'
import { startTestRedis, type TestRedis } from './support/redis.ts'
import { jsonReply, startUpstream, type TestUpstream } from './support/upstream.ts'

// Route health across instances sharing one Redis: after a shared cooldown one probe goes upstream for all of them,
// and an instance starting while a route is down skips it from its first request.
let redis: TestRedis
let upstream: TestUpstream
let healthy = false
const gateways: TestGateway[] = []

const cooldownS = 2
const config = () => ({
  providers: [{ name: 'flaky', type: 'openai', base_url: `${upstream.url}/v1`, api_key: 'sk-up' }],
  models: [{ id: 'flaky', provider: 'flaky', upstream_model: 'gpt-x', price: { input: 1, output: 2 } }],
  routing: { min_requests: 1, max_attempts: 1, cooldown_s: cooldownS },
  redis: redis.url,
})

const startInstance = async () => {
  const gateway = await startTestGateway({ config: config() })
  gateways.push(gateway)
  return gateway
}

beforeAll(async () => {
  redis = await startTestRedis()
  upstream = startUpstream(async (request) => {
    // Slow enough that the instances' probes would overlap if each sent its own.
    await Bun.sleep(300)
    return healthy ? jsonReply(chatCompletion(request)) : jsonReply({ error: { message: 'down', type: 'server_error' } }, 500)
  })
})

afterAll(async () => {
  for (const gateway of gateways) await gateway.stop()
  await upstream?.stop()
  await redis?.stop()
})

function chat(gateway: TestGateway): Promise<number> {
  return fetch(`${gateway.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gateway.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'flaky', messages: [{ role: 'user', content: 'hi' }] }),
  }).then(async (response) => (await response.text(), response.status))
}

async function stateOn(gateway: TestGateway): Promise<string | undefined> {
  const status = (await (await fetch(`${gateway.url}/status`)).json()) as { routes: { route: string; state: string }[] }
  return status.routes.find((route) => route.route.startsWith('flaky'))?.state
}

async function until(check: () => Promise<boolean>, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline && !(await check())) await Bun.sleep(10)
}

test('an instance starting while a route is down skips it from its first request, without asking the upstream', async () => {
  const [first, second] = [await startInstance(), await startInstance()]
  expect(await chat(first)).toBe(502) // found down: open on both
  await until(async () => (await stateOn(second)) === 'open')
  const late = await startInstance()
  expect(await stateOn(late)).toBe('open')
  const asked = upstream.requests.length
  expect(await chat(late)).toBe(503)
  expect(upstream.requests.length).toBe(asked)
})

test('after the shared cooldown one probe goes upstream across every instance, and its verdict is theirs', async () => {
  const [first, second, late] = gateways as [TestGateway, TestGateway, TestGateway]
  await Bun.sleep(cooldownS * 1000 + 100)
  // Still down: of six requests over three instances at once, one probes; the others are told to come back.
  const before = upstream.requests.length
  const statuses = await Promise.all([first, second, late, first, second, late].map(chat))
  expect(upstream.requests.length - before).toBe(1)
  expect(statuses.filter((status) => status === 502).length).toBe(1)
  expect(statuses.filter((status) => status === 503).length).toBe(5)
  for (const gateway of gateways) await until(async () => (await stateOn(gateway)) === 'open')

  // Back up: again one probe for all, and its success closes the route everywhere.
  healthy = true
  await Bun.sleep(cooldownS * 1000 + 100)
  const again = upstream.requests.length
  const probed = await Promise.all([first, second, late].map(chat))
  expect(upstream.requests.length - again).toBe(1)
  expect(probed.filter((status) => status === 200).length).toBe(1)
  for (const gateway of gateways) {
    await until(async () => (await stateOn(gateway)) === 'closed')
    expect(await stateOn(gateway)).toBe('closed')
    expect(await chat(gateway)).toBe(200)
  }
}, 20_000)
