import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import OpenAI from 'openai'
import { startTestGateway, type TestGateway } from './support/gateway.ts'
import { createTestDatabase } from './support/postgres.ts'

/**
 * One account, two keys, a small balance. Requests in flight on one key hold a lease that took the whole free balance
 * for itself (a lease grows by many holds at once); a request on the other key whose worst case fits in what the
 * requests in flight leave must still be served — the idle room of the first lease is given back first.
 */
const config = {
  providers: [{ name: 'slow', type: 'mock', chunk_delay_ms: 60 }],
  models: [
    // $1 / $2 per million: a request's worst case is ~(prompt bytes × 1 000 + 50 × 2 000) nano-dollars, ~0.00025 USD.
    { id: 'mock-slow', provider: 'slow', price: { input: 1, output: 2 }, max_output_tokens: 50 },
    // 1 000 output tokens: a worst case of ~0.0021 USD, more than the whole balance.
    { id: 'mock-big', provider: 'slow', price: { input: 1, output: 2 }, max_output_tokens: 1000 },
  ],
}

const backends: [string, () => Promise<{ database?: string; drop(): Promise<void> }>][] = [
  ['SQLite', async () => ({ drop: async () => {} })],
  [
    'PostgreSQL',
    async () => {
      const database = await createTestDatabase()
      return { database: database.url, drop: () => database.drop() }
    },
  ],
]

describe.each(backends)('lease room on %s', (_, backend) => {
  let gateway: TestGateway
  let drop: () => Promise<void>

  beforeAll(async () => {
    const made = await backend()
    drop = made.drop
    gateway = await startTestGateway({ config, database: made.database, balanceUsd: '0.001' })
  })

  afterAll(async () => {
    await gateway.stop()
    await drop()
  })

  const client = (secret: string) => new OpenAI({ baseURL: gateway.baseUrl, apiKey: secret, maxRetries: 0 })

  /** A streamed answer that has begun (its hold is placed); `rest` reads it to the end. */
  async function inFlight(secret: string) {
    const stream = await client(secret).chat.completions.create({
      model: 'mock-slow',
      stream: true,
      messages: [{ role: 'user', content: 'one two three four five six seven eight nine ten eleven twelve' }],
    })
    const chunks = stream[Symbol.asyncIterator]()
    await chunks.next()
    return {
      async rest() {
        let text = ''
        for (let next = await chunks.next(); !next.done; next = await chunks.next()) text += next.value.choices[0]?.delta.content ?? ''
        return text
      },
    }
  }

  const ask = (secret: string, model: string) =>
    client(secret)
      .chat.completions.create({ model, messages: [{ role: 'user', content: 'a small question' }] })
      .then(
        () => 200,
        (error: { status?: number }) => error.status,
      )

  for (const [busy, asking] of [
    ['an unbudgeted key', 'a budgeted key'],
    ['a budgeted key', 'an unbudgeted key'],
  ] as const) {
    test(`${asking} is served while ${busy} is busy, when its worst case fits what the requests in flight leave`, async () => {
      const account = await gateway.createAccount(`lease-${crypto.randomUUID().slice(0, 8)}`, '0.001')
      const budgeted = await gateway.createKey({ accountId: account.id, budget: 1_000_000_000 })
      const plain = await gateway.createKey({ accountId: account.id })
      const [busyKey, askingKey] = busy === 'a budgeted key' ? [budgeted, plain] : [plain, budgeted]
      const store = gateway.gateway.services.store

      const running = [await inFlight(busyKey.secret), await inFlight(busyKey.secret)]
      // The busy key's lease took all of the free balance, though its two requests hold far less.
      const during = (await store.accounts.findById(account.id))!
      expect(during.reserved).toBe(during.balance)

      expect(await ask(askingKey.secret, 'mock-slow')).toBe(200)
      // A worst case beyond the balance is still refused, leases or not.
      expect(await ask(askingKey.secret, 'mock-big')).toBe(403)
      for (const text of await Promise.all(running.map((stream) => stream.rest()))) expect(text).toContain('Hello')
      // And the busy key's next request still fits too.
      expect(await ask(busyKey.secret, 'mock-slow')).toBe(200)

      await gateway.gateway.services.ledger.drain()
      const after = (await store.accounts.findById(account.id))!
      const summary = await store.usage.summarize({ accountId: account.id })
      expect(after.reserved).toBe(0)
      // Four served, and the refused one's row (403, cost 0).
      expect(summary.requests).toBe(5)
      expect((await store.usage.summarize({ accountId: account.id, statusMin: 200, statusMax: 299 })).requests).toBe(4)
      expect(1_000_000 - after.balance).toBe(summary.spent)
    })
  }
})
