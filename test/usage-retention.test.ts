import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { dayMs } from '../src/core/time.ts'
import { createKey } from '../src/domain/keys.ts'
import { Ledger } from '../src/domain/ledger.ts'
import type { AccountRecord, KeyRecord, UsageFilter, UsageRecord } from '../src/domain/records.ts'
import type { Store } from '../src/domain/repositories.ts'
import { foldCutoff, UsageFolder } from '../src/domain/usage-folder.ts'
import { silentLogger } from '../src/core/logger.ts'
import { storeBackends } from './support/stores.ts'

// Retention: rows older than the cutoff are folded into daily totals; every summary is the same before and after,
// to the nano-dollar; the request log keeps only live rows; no balance moves. Refusal rows (cost 0, no money) go
// through the ledger's batch writer on both databases.

const now = Date.UTC(2026, 5, 15, 12)
const models = ['m-a', 'm-b', 'm-c']
const statuses = [200, 200, 200, 429, 403, 502]

function row(account: AccountRecord, key: KeyRecord, index: number, createdAt: number): UsageRecord {
  const status = statuses[index % statuses.length]!
  return {
    requestId: `req_${index}_${crypto.randomUUID()}`,
    accountId: account.id,
    keyId: key.id,
    model: models[index % models.length]!,
    provider: 'p',
    upstreamModel: 'u',
    protocol: 'openai-chat',
    operation: 'chat',
    units: 0,
    inputTokens: 100 + index,
    cachedInputTokens: index % 7,
    cacheWriteTokens: index % 3,
    outputTokens: 50 + (index % 11),
    reasoningTokens: index % 5,
    cost: status === 200 ? 1_234_567 + index * 89 : 0,
    status,
    errorType: status === 200 ? null : `e${status}`,
    latencyMs: 5,
    stream: false,
    estimated: false,
    createdAt,
  }
}

async function snapshot(store: Store, filters: UsageFilter[]) {
  const out: unknown[] = []
  for (const filter of filters) {
    // A day's span (its first and last request) is known only while its rows are live: the totals are what must stay.
    const days = (await store.usage.dailyTotals(filter)).map(({ firstAt: _first, lastAt: _last, ...totals }) => totals)
    out.push(await store.usage.summarize(filter), days)
    for (const dimension of ['model', 'keyId', 'accountId'] as const) {
      // Ties in spend may come in either order: compare as sets.
      out.push((await store.usage.totalsBy(dimension, filter)).sort((a, b) => a.group.localeCompare(b.group)))
    }
  }
  return out
}

for (const [name, prepare] of storeBackends) {
  describe(`usage retention: ${name}`, () => {
    let backend: Awaited<ReturnType<typeof prepare>>
    let store: Store
    let account: AccountRecord
    let keys: KeyRecord[]

    beforeAll(async () => {
      backend = await prepare()
      store = backend.open()
      await store.migrate()
      account = await store.accounts.create('folded-co', now)
      await store.accounts.credit(account.id, 5_000_000_000, 'test', 'test', now)
      keys = [
        (await createKey(store.keys, { accountId: account.id, name: 'one' })).record,
        (await createKey(store.keys, { accountId: account.id, name: 'two' })).record,
      ]
    })

    afterAll(async () => {
      await store.close()
      await backend.cleanup()
    })

    test('refusal rows are written without touching any balance', async () => {
      const ledger = new Ledger(store.ledger)
      ledger.recordRefusal({ ...row(account, keys[0]!, 3, now), requestId: 'refused', cost: 0 })
      await ledger.flush()
      const [written] = await store.usage.listRequests({ accountId: account.id }, 10)
      expect(written).toMatchObject({ requestId: 'refused', status: 429, cost: 0 })
      expect((await store.accounts.findById(account.id))!).toMatchObject({ balance: 5_000_000_000, reserved: 0 })
      expect((await store.keys.findById(keys[0]!.id))!.spent).toBe(0)
    })

    test('folding keeps every summary equal to the nano-dollar, the request log only live rows, and no balance moves', async () => {
      // 600 rows over the 12 days before `now`, a few per hour, through the ledger's batch writer (refusal kind: no money).
      const ledger = new Ledger(store.ledger)
      for (let index = 0; index < 600; index++) {
        ledger.recordRefusal(row(account, keys[index % 2]!, index, now - 12 * dayMs + index * ((12 * dayMs) / 600)))
      }
      await ledger.flush()
      const day = (offset: number) => (Math.floor(now / dayMs) - offset) * dayMs
      const filters: UsageFilter[] = [
        {},
        { accountId: account.id },
        { keyId: keys[1]!.id },
        { model: 'm-b' },
        { statusMin: 429, statusMax: 429 },
        { statusMin: 400, statusMax: 599 },
        { since: day(30), until: day(-1) },
        { since: day(9), until: day(4) },
        { keyId: keys[0]!.id, statusMin: 200, statusMax: 299, since: day(11), until: day(2) },
      ]
      const before = await snapshot(store, filters)
      const liveBefore = await store.usage.listRequests({}, 1000)
      const cutoff = foldCutoff(now, 5)
      const older = liveBefore.filter((entry) => entry.createdAt < cutoff).length
      expect(older).toBeGreaterThan(200)

      // Small batches, so many transactions and the add-to-an-existing-day path are exercised.
      const folder = new UsageFolder(store.usage, { requestsDays: 5, batchRows: 37, pauseMs: 0, logger: silentLogger })
      expect(await folder.foldNow(now)).toBe(older)
      expect(await snapshot(store, filters)).toEqual(before)
      const live = await store.usage.listRequests({}, 1000)
      expect(live).toHaveLength(liveBefore.length - older)
      expect(live.every((entry) => entry.createdAt >= cutoff)).toBe(true)
      expect(await folder.foldNow(now)).toBe(0)

      // Late rows for an already folded day add to its totals.
      const late = row(account, keys[0]!, 0, cutoff - 3 * dayMs + 1000)
      ledger.recordRefusal(late)
      await ledger.flush()
      const withLate = await store.usage.summarize({ accountId: account.id })
      expect(await folder.foldNow(now)).toBe(1)
      expect(await store.usage.summarize({ accountId: account.id })).toEqual(withLate)
      expect(withLate.spent).toBe((before[5] as { spent: number }).spent + late.cost) // the { accountId } summary

      // Fold the rest (retention of 0 days here means: everything before today's midnight).
      await new UsageFolder(store.usage, { requestsDays: 0, batchRows: 1000, logger: silentLogger }).foldNow(now)
      expect(await store.usage.summarize({ accountId: account.id })).toEqual(withLate)
      expect((await store.accounts.findById(account.id))!).toMatchObject({ balance: 5_000_000_000, reserved: 0 })
    })

    if (name === 'postgres') {
      test('two instances folding at once sum every row exactly once', async () => {
        const second = backend.open()
        const ledger = new Ledger(store.ledger)
        for (let index = 0; index < 3000; index++)
          ledger.recordRefusal(row(account, keys[index % 2]!, index, now - 40 * dayMs + index * 1000))
        await ledger.flush()
        const before = await store.usage.summarize({ accountId: account.id })
        const folders = [store, second].map(
          (each) => new UsageFolder(each.usage, { requestsDays: 30, batchRows: 100, pauseMs: 0, logger: silentLogger }),
        )
        // Each stops when it finds the other holding the lock; keep folding until nothing old is left.
        let folded = 0
        for (let round = 0; round < 100; round++) {
          const results = await Promise.all(folders.map((folder) => folder.foldNow(now)))
          folded += results[0]! + results[1]!
          if ((await store.usage.listRequests({ until: foldCutoff(now, 30) }, 1)).length === 0) break
        }
        expect(folded).toBe(3000)
        expect(await store.usage.summarize({ accountId: account.id })).toEqual(before)
        await second.close()
      })
    }
  })
}
