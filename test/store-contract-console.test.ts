import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { UsageFilter, UsageRecord } from '../src/domain/records.ts'
import type { Store } from '../src/domain/repositories.ts'
import { createUser } from '../src/domain/users.ts'
import { storeBackends } from './support/stores.ts'

/** The console's storage (users, sessions, the request log and its totals) behaves the same on every backend. */
const day = 86_400_000

function usage(accountId: number, overrides: Partial<UsageRecord>): UsageRecord {
  return {
    requestId: `req_${crypto.randomUUID()}`,
    accountId,
    keyId: 'key_a',
    model: 'm1',
    provider: 'p',
    upstreamModel: 'u',
    protocol: 'openai-chat',
    operation: 'chat',
    units: 0,
    inputTokens: 10,
    cachedInputTokens: 0,
    cacheWriteTokens: 0,
    outputTokens: 5,
    reasoningTokens: 0,
    cost: 100,
    status: 200,
    errorType: null,
    latencyMs: 1,
    stream: false,
    estimated: false,
    createdAt: 0,
    ...overrides,
  }
}

for (const [name, prepare] of storeBackends) {
  describe(`console store contract: ${name}`, () => {
    let backend: Awaited<ReturnType<typeof prepare>>
    let store: Store
    let ids: number[] = []
    let first: number
    let second: number

    beforeAll(async () => {
      backend = await prepare()
      store = backend.open()
      await store.migrate()
      first = (await store.accounts.create('one', 0)).id
      second = (await store.accounts.create('two', 0)).id
      for (const accountId of [first, second]) {
        await store.accounts.credit(accountId, 1_000_000, 'seed', 'test', 0)
        await store.ledger.reserve({ leaseId: `lease-${accountId}`, accountId, keyId: 'key_a', need: 1000, want: 1000, at: 0 })
      }
      const rows = [
        usage(first, { createdAt: 10 * day + 5 }),
        usage(first, { createdAt: 10 * day + 5, model: 'm2', cost: 300 }), // same millisecond: the id breaks the tie
        usage(first, { createdAt: 12 * day + 1, status: 429, cost: 0, keyId: 'key_b' }),
        usage(second, { createdAt: 11 * day, cost: 7 }),
      ]
      await store.ledger.write(rows.map((row) => ({ kind: 'settle' as const, leaseId: `lease-${row.accountId}`, usage: row })))
      ids = (await store.usage.listRequests({}, 10)).map((row) => row.id).sort((a, b) => a - b) // insertion order
    })

    afterAll(async () => {
      await store.close()
      await backend.cleanup()
    })

    test('keyset pages walk newest first through rows sharing a millisecond, without gaps or repeats', async () => {
      const seen: number[] = []
      let before: { createdAt: number; id: number } | undefined
      for (;;) {
        const [row] = await store.usage.listRequests({}, 1, before)
        if (!row) break
        seen.push(row.id)
        before = { createdAt: row.createdAt, id: row.id }
      }
      expect(seen).toEqual([ids[2], ids[3], ids[1], ids[0]])
    })

    test('request log filters: account, key, model, status range, time range', async () => {
      const found = async (filter: UsageFilter) => (await store.usage.listRequests(filter, 10)).map((row) => row.id)
      expect(await found({ accountId: first })).toEqual([ids[2], ids[1], ids[0]])
      expect(await found({ keyId: 'key_b' })).toEqual([ids[2]])
      expect(await found({ model: 'm2' })).toEqual([ids[1]])
      expect(await found({ statusMin: 400, statusMax: 499 })).toEqual([ids[2]])
      expect(await found({ since: 11 * day, until: 12 * day })).toEqual([ids[3]])
      const [row] = await store.usage.listRequests({ model: 'm2' }, 1)
      expect(row).toMatchObject({ accountId: first, cost: 300, status: 200, stream: false, createdAt: 10 * day + 5 })
    })

    test('daily totals by UTC day; totals by model and account, largest spend first', async () => {
      expect(await store.usage.dailyTotals({ accountId: first })).toEqual([
        {
          day: 10 * day,
          firstAt: 10 * day + 5,
          lastAt: 10 * day + 5,
          requests: 2,
          succeeded: 2,
          refused: 0,
          failed: 0,
          inputTokens: 20,
          outputTokens: 10,
          spent: 400,
        },
        {
          day: 12 * day,
          firstAt: 12 * day + 1,
          lastAt: 12 * day + 1,
          requests: 1,
          succeeded: 0,
          refused: 1,
          failed: 0,
          inputTokens: 10,
          outputTokens: 5,
          spent: 0,
        },
      ])
      expect(await store.usage.totalsBy('model', {})).toEqual([
        { group: 'm2', requests: 1, succeeded: 1, refused: 0, failed: 0, inputTokens: 10, outputTokens: 5, spent: 300 },
        { group: 'm1', requests: 3, succeeded: 2, refused: 1, failed: 0, inputTokens: 30, outputTokens: 15, spent: 107 },
      ])
      expect((await store.usage.totalsBy('accountId', {})).map((group) => group.group)).toEqual([String(first), String(second)])
    })

    test('requests split by outcome — answered, refused, failed — live and after folding into daily totals', async () => {
      const third = (await store.accounts.create('three', 0)).id
      const statuses = [200, 200, 403, 429, 429, 400, 499, 502, 500]
      await store.ledger.write(
        statuses.map((status, index) => ({
          kind: 'refusal' as const,
          usage: usage(third, { status, cost: 0, createdAt: 2 * day + index }),
        })),
      )
      const split = { requests: 9, succeeded: 2, refused: 4, failed: 3 }
      expect(await store.usage.summarize({ accountId: third })).toMatchObject(split)
      expect(await store.usage.dailyTotals({ accountId: third })).toEqual([expect.objectContaining({ day: 2 * day, ...split })])
      expect(await store.usage.totalsBy('accountId', { accountId: third })).toEqual([
        expect.objectContaining({ group: String(third), ...split }),
      ])
      expect((await store.usage.fold(5 * day, 1000)).folded).toBe(9)
      expect(await store.usage.listRequests({ accountId: third }, 10)).toEqual([])
      expect(await store.usage.summarize({ accountId: third })).toMatchObject(split)
      expect(await store.usage.totalsBy('model', { accountId: third })).toEqual([expect.objectContaining({ group: 'm1', ...split })])
    })

    test('users: unique names; deleting one deletes its sessions', async () => {
      const { user } = await createUser(store, { name: 'ops', role: 'account-admin', accountId: first, password: 'a long enough password' })
      expect(await store.users.findByName('ops')).toEqual(user)
      expect(user.accountId).toBe(first)
      await expect(createUser(store, { name: 'ops', role: 'admin' })).rejects.toThrow('already exists')
      await store.sessions.create({ id: 'hash-1', userId: user.id, csrfToken: 'c', createdAt: 1, lastSeenAt: 1, expiresAt: 100 })
      await store.sessions.create({ id: 'hash-2', userId: user.id, csrfToken: 'c', createdAt: 1, lastSeenAt: 1, expiresAt: 1000 })
      await store.sessions.extend('hash-2', 50, 2000)
      expect(await store.sessions.find('hash-2')).toMatchObject({ lastSeenAt: 50, expiresAt: 2000 })
      expect(await store.sessions.deleteExpired(100)).toBe(1)
      expect(await store.users.setPasswordHash(user.id, 'new-hash', 5)).toBe(true)
      expect(await store.users.delete(user.id)).toBe(true)
      expect(await store.sessions.find('hash-2')).toBeUndefined()
      expect(await store.users.list()).toEqual([])
    })
  })
}
