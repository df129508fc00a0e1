import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { UsageRecord } from '../records.ts'
import type { Store } from '../repositories.ts'
import { openSqliteStore } from './store.ts'

const day = 86_400_000
let store: Store

function usage(overrides: Partial<UsageRecord>): UsageRecord {
  return {
    requestId: `req_${crypto.randomUUID()}`, accountId: 1, keyId: 'key_a', model: 'm1', provider: 'p', upstreamModel: 'u', protocol: 'openai-chat',
    inputTokens: 10, cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens: 5, reasoningTokens: 0, cost: 100, status: 200,
    errorType: null, latencyMs: 1, stream: false, estimated: false, createdAt: 0, ...overrides,
  }
}

beforeAll(async () => {
  store = openSqliteStore(':memory:')
  await store.migrate()
  const first = await store.accounts.create('one', 0)
  const second = await store.accounts.create('two', 0)
  await store.accounts.credit(first.id, 1_000_000, 'seed', 'test', 0)
  await store.accounts.credit(second.id, 1_000_000, 'seed', 'test', 0)
  const rows = [
    usage({ accountId: first.id, createdAt: 10 * day + 5 }),
    usage({ accountId: first.id, createdAt: 10 * day + 5, model: 'm2', cost: 300 }), // same millisecond: the id breaks the tie
    usage({ accountId: first.id, createdAt: 12 * day + 1, status: 429, cost: 0, keyId: 'key_b' }),
    usage({ accountId: second.id, createdAt: 11 * day, cost: 7 }),
  ]
  await store.ledger.settle(rows.map((row, index) => ({ hold: { id: `h${index}`, accountId: row.accountId, keyId: row.keyId, amount: 0, createdAt: 0 }, usage: row })))
})

afterAll(() => store.close())

test('keyset pages walk newest first through rows that share a millisecond, without gaps or repeats', async () => {
  const seen: number[] = []
  let before: { createdAt: number; id: number } | undefined
  for (;;) {
    const page = await store.usage.listRequests({}, 1, before)
    if (page.length === 0) break
    seen.push(page[0]!.id)
    before = { createdAt: page[0]!.createdAt, id: page[0]!.id }
  }
  expect(seen).toEqual([3, 4, 2, 1])
})

test('filters: account, key, model, status range and time range', async () => {
  const ids = async (filter: Parameters<Store['usage']['listRequests']>[0]) => (await store.usage.listRequests(filter, 10)).map((row) => row.id)
  expect(await ids({ accountId: 1 })).toEqual([3, 2, 1])
  expect(await ids({ keyId: 'key_b' })).toEqual([3])
  expect(await ids({ model: 'm2' })).toEqual([2])
  expect(await ids({ statusMin: 400, statusMax: 499 })).toEqual([3])
  expect(await ids({ since: 11 * day, until: 12 * day })).toEqual([4])
})

test('daily totals bucket by UTC day and per-dimension totals sort by spend', async () => {
  expect(await store.usage.dailyTotals({ accountId: 1 })).toEqual([
    { day: 10 * day, requests: 2, inputTokens: 20, outputTokens: 10, spent: 400 },
    { day: 12 * day, requests: 1, inputTokens: 10, outputTokens: 5, spent: 0 },
  ])
  expect(await store.usage.totalsBy('model', {})).toEqual([
    { group: 'm2', requests: 1, inputTokens: 10, outputTokens: 5, spent: 300 },
    { group: 'm1', requests: 3, inputTokens: 30, outputTokens: 15, spent: 107 },
  ])
  expect((await store.usage.totalsBy('accountId', {})).map((group) => group.group)).toEqual(['1', '2'])
})
