import { afterAll, beforeAll, expect, test } from 'bun:test'
import OpenAI from 'openai'
import { systemActor } from '../src/domain/actor.ts'
import { parseUsd } from '../src/core/money.ts'
import { pollUntil } from './support/poll.ts'
import { mockConfig, startTestGateway, type TestGateway } from './support/gateway.ts'
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.ts'

/**
 * A receiver that takes 5 s to answer adds nothing to requests: deliveries run in the background, and the settle path
 * only marks an account whose balance a webhook watches. Measured as the median of sequential requests with no
 * webhook, then with ten deliveries held open by the slow receiver for the whole measurement.
 */
let gateway: TestGateway
let receiver: WebhookReceiver
let client: OpenAI

beforeAll(async () => {
  gateway = await startTestGateway({ config: { ...mockConfig, webhooks: { allow_private_addresses: true } } })
  receiver = startWebhookReceiver({ delayMs: 5000 })
  client = new OpenAI({ baseURL: gateway.baseUrl, apiKey: gateway.key, maxRetries: 0 })
})
afterAll(async () => {
  await gateway.stop()
  await receiver.stop()
})

const ask = () => client.chat.completions.create({ model: 'mock-1', messages: [{ role: 'user', content: 'hi' }], max_tokens: 8 })

async function medianLatency(requests: number): Promise<number> {
  const times: number[] = []
  for (let index = 0; index < requests; index++) {
    const started = performance.now()
    await ask()
    times.push(performance.now() - started)
  }
  times.sort((left, right) => left - right)
  return times[Math.floor(times.length / 2)]!
}

test('a receiver that sleeps 5 s adds nothing to request latency', async () => {
  await medianLatency(30) // warm up: JIT, connections, the ledger's lease
  const without = await medianLatency(60)
  // Ten webhooks that watch the balance (below $1000, so the next settlement alerts all ten) on the slow receiver.
  for (let index = 0; index < 10; index++) {
    await gateway.gateway.services.alerting.webhooks.create(
      { accountId: gateway.account.id, url: receiver.url, events: ['balance.below'], balanceBelow: parseUsd('1000') },
      systemActor('test'),
    )
  }
  await ask()
  await pollUntil(
    async () => receiver.waiting,
    (waiting) => waiting === 10,
  )
  const withSlowReceiver = await medianLatency(60)
  // The deliveries were still held open by the receiver when the last request was answered.
  expect(receiver.waiting).toBe(10)
  console.log(
    `median request latency: ${without.toFixed(2)} ms without a webhook, ${withSlowReceiver.toFixed(2)} ms with ten deliveries to a 5 s receiver in flight`,
  )
  expect(withSlowReceiver).toBeLessThan(without * 1.5 + 2)
}, 30_000)
