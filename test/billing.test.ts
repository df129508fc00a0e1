import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import OpenAI from 'openai'
import { startTestGateway, type TestGateway } from './support/gateway.ts'

let gateway: TestGateway

beforeAll(async () => {
  gateway = await startTestGateway({
    config: {
      providers: [{ name: 'mock', type: 'mock' }],
      // $1 and $2 per 1M tokens: 1000 and 2000 nano-dollars per token.
      models: [{ id: 'mock-1', provider: 'mock', price: { input: 1, output: 2 }, max_output_tokens: 50 }],
    },
  })
})

afterAll(() => gateway.stop())

const body = JSON.stringify({ model: 'mock-1', messages: [{ role: 'user', content: 'count my money' }] })

function send(secret: string) {
  return fetch(`${gateway.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    body,
  })
}

describe('billing', () => {
  test('one request costs exactly its usage at the configured prices', async () => {
    const before = await gateway.settled()
    const response = await send(gateway.key)
    const { usage } = (await response.json()) as OpenAI.ChatCompletion
    const after = await gateway.settled()
    expect(before.balance - after.balance).toBe(usage!.prompt_tokens * 1000 + usage!.completion_tokens * 2000)
    expect(after.reserved).toBe(0)
  })

  test('150 concurrent requests against a balance that covers a few: never negative, spend = sum of usage rows', async () => {
    const account = await gateway.createAccount(`race-${Date.now()}`, '0.0005')
    const { secret, record } = await gateway.createKey({ accountId: account.id })
    const statuses = await Promise.all(
      Array.from({ length: 150 }, () =>
        send(secret).then(async (response) => {
          await response.arrayBuffer()
          return response.status
        }),
      ),
    )
    await gateway.settled()
    const store = gateway.gateway.services.store
    const final = (await store.accounts.findById(account.id))!
    const summary = await store.usage.summarize({ accountId: account.id })
    const ok = statuses.filter((status) => status === 200).length
    const refused = statuses.filter((status) => status === 403).length
    expect(ok + refused).toBe(150)
    expect(ok).toBeGreaterThan(0)
    expect(refused).toBeGreaterThan(0)
    expect(final.balance).toBeGreaterThanOrEqual(0)
    expect(final.reserved).toBe(0)
    expect(500_000 - final.balance).toBe(summary.spent)
    // Every request left a row: the refused ones with status 403 and cost 0.
    expect(summary.requests).toBe(150)
    expect((await store.usage.summarize({ accountId: account.id, statusMin: 403, statusMax: 403 })).requests).toBe(refused)
    expect((await store.usage.summarize({ accountId: account.id, statusMin: 403, statusMax: 403 })).spent).toBe(0)
    // The key's running spend is the same sum.
    expect((await store.keys.findById(record.id))!.spent).toBe(summary.spent)
  })

  test('a balance drained by real spend refuses the next request', async () => {
    const account = await gateway.createAccount(`drain-${Date.now()}`, '0.0003')
    const { secret } = await gateway.createKey({ accountId: account.id })
    const statuses: number[] = []
    for (let index = 0; index < 30; index++) {
      const response = await send(secret)
      await response.arrayBuffer()
      statuses.push(response.status)
      await gateway.gateway.services.ledger.flush()
    }
    expect(statuses[0]).toBe(200)
    expect(statuses.at(-1)).toBe(403)
    const final = (await gateway.gateway.services.store.accounts.findById(account.id))!
    expect(final.balance).toBeGreaterThanOrEqual(0)
  })
})
