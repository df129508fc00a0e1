import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { UsageRecord } from '../src/domain/records.ts'
import type { Store } from '../src/domain/repositories.ts'
import { createAdminToken } from '../src/domain/admin-tokens.ts'
import { systemActor } from '../src/domain/actor.ts'
import { createKey, hashKey, rotateKey, updateKey } from '../src/domain/keys.ts'
import { Ledger } from '../src/domain/ledger.ts'
import { storeBackends } from './support/stores.ts'
import { bill } from './support/usage-records.ts'

/**
 * One contract, every backend: the same suite runs against a real SQLite file and the machine's real PostgreSQL,
 * so the relay and the ledger rules can rely on either without knowing which.
 */
function usage(accountId: number, keyId: string, cost: number): UsageRecord {
  return { ...bill(accountId, keyId, cost), inputTokens: 10, cachedInputTokens: 2, outputTokens: 5, latencyMs: 3, stream: true }
}

const backends = storeBackends

for (const [name, prepare] of backends) {
  describe(`store contract: ${name}`, () => {
    let backend: Awaited<ReturnType<typeof prepare>>
    let store: Store
    let other: Store

    beforeAll(async () => {
      backend = await prepare()
      store = backend.open()
      await store.migrate()
      await store.migrate() // idempotent
      other = backend.open() // a second instance on the same database
    })

    afterAll(async () => {
      await store.close()
      await other.close()
      await backend.cleanup()
    })

    test('accounts: create, credit with a ledger entry, find, list', async () => {
      const account = await store.accounts.create(`acme-${name}`, 1000)
      const credited = await store.accounts.credit(account.id, 9_007_199_254_000, 'big money', 'test', 2000)
      expect(credited.balance).toBe(9_007_199_254_000)
      expect((await store.accounts.findByName(`acme-${name}`))!.id).toBe(account.id)
      expect((await store.accounts.ledgerEntries(account.id))[0]).toMatchObject({
        amount: 9_007_199_254_000,
        balanceAfter: 9_007_199_254_000,
        note: 'big money',
      })
      expect((await store.accounts.list()).map((item) => item.name)).toContain(`acme-${name}`)
    })

    test('accounts: a credit past the largest balance or a debit below zero is refused in the same statement, nothing written', async () => {
      const account = await store.accounts.create(`range-${name}`, 1000)
      await store.accounts.credit(account.id, Number.MAX_SAFE_INTEGER - 10, 'nearly full', 'test', 2000)
      await expect(store.accounts.credit(account.id, 11, 'one too many', 'test', 3000)).rejects.toThrow('largest an account can hold')
      await expect(store.accounts.credit(account.id, -Number.MAX_SAFE_INTEGER, 'too much', 'test', 3000)).rejects.toThrow('below zero')
      expect((await other.accounts.findById(account.id))!.balance).toBe(Number.MAX_SAFE_INTEGER - 10)
      expect((await store.accounts.ledgerEntries(account.id)).length).toBe(1)
    })

    test('keys: insert, find by hash, revoke once, changed since', async () => {
      const account = await store.accounts.create(`keys-${name}`, 1000)
      const before = Date.now()
      const { record } = await createKey(store.keys, { accountId: account.id, models: ['a', 'b'], rpm: 5 })
      expect(await store.keys.findByHash(record.hash)).toEqual(record)
      expect((await store.keys.changedSince(before)).map((key) => key.id)).toContain(record.id)
      expect(await store.keys.revoke(record.id, Date.now())).toBe(true)
      expect(await store.keys.revoke(record.id, Date.now())).toBe(false)
      expect((await other.keys.findById(record.id))!.revokedAt).not.toBeNull()
    })

    test('keys: update changes only the fields given; rotate swaps the secret, keeping the id; neither touches a revoked key', async () => {
      const account = await store.accounts.create(`keys-change-${name}`, 1000)
      const { record, secret } = await createKey(store.keys, { accountId: account.id, name: 'ci', models: ['a'], rpm: 5, tpm: 900 })
      const updated = await updateKey(store.keys, record.id, { rpm: 7, models: ['b', 'b', 'c'], expiresAt: null, budget: 3_000_000 })
      expect(updated).toMatchObject({ id: record.id, name: 'ci', rpm: 7, tpm: 900, models: ['b', 'c'], budget: 3_000_000 })
      expect(updated.updatedAt).toBeGreaterThan(record.updatedAt)
      expect((await updateKey(store.keys, record.id, { models: null, rpm: null })).models).toBeNull()
      const rotated = await rotateKey(store.keys, record.id)
      expect(rotated.secret).toStartWith('tg-')
      expect(rotated.secret).not.toBe(secret)
      expect(await other.keys.findByHash(hashKey(secret))).toBeUndefined()
      expect(await other.keys.findByHash(hashKey(rotated.secret))).toMatchObject({
        id: record.id,
        prefix: rotated.secret.slice(0, 11),
        tpm: 900,
      })
      await store.keys.revoke(record.id, Date.now())
      expect(await store.keys.update(record.id, { rpm: 1 }, Date.now())).toBe(false)
      expect(await store.keys.rotate(record.id, { hash: 'x', prefix: 'y' }, Date.now())).toBe(false)
      await expect(rotateKey(store.keys, record.id)).rejects.toThrow('revoked')
      await expect(updateKey(store.keys, 'key_missing', { rpm: 1 })).rejects.toThrow('does not exist')
    })

    test('admin tokens: stored hashed, listed, touched, revoked once', async () => {
      const { record, secret } = await createAdminToken(store.adminTokens, `ops-${name}`, 'read', systemActor(), 1000)
      expect(secret).toStartWith('tga-')
      expect(record.hash).toBe(hashKey(secret))
      expect(await other.adminTokens.findByHash(hashKey(secret))).toEqual(record)
      expect((await store.adminTokens.list()).map((token) => token.id)).toContain(record.id)
      await store.adminTokens.touch(record.id, 5000)
      expect((await other.adminTokens.findById(record.id))!.lastUsedAt).toBe(5000)
      expect(await store.adminTokens.revoke(record.id, 6000)).toBe(true)
      expect(await store.adminTokens.revoke(record.id, 7000)).toBe(false)
      expect((await other.adminTokens.findById(record.id))!.revokedAt).toBe(6000)
    })

    test('ledger: two instances reserving concurrently never overdraw; spend = usage rows = key spend', async () => {
      const account = await store.accounts.create(`race-${name}`, 1000)
      await store.accounts.credit(account.id, 1_000_000, 'seed', 'test', Date.now())
      const { record } = await createKey(store.keys, { accountId: account.id })
      const ledgers = [new Ledger(store.ledger), new Ledger(other.ledger)]
      let admitted = 0
      await Promise.all(
        Array.from({ length: 120 }, async (_, index) => {
          const ledger = ledgers[index % 2]!
          try {
            const hold = await ledger.placeHold(account.id, record.id, 40_000)
            admitted++
            await Bun.sleep(index % 4)
            ledger.settle(hold, usage(account.id, record.id, 17_000))
          } catch {}
        }),
      )
      await Promise.all(ledgers.map((ledger) => ledger.drain()))
      const final = (await store.accounts.findById(account.id))!
      const summary = await store.usage.summarize({ accountId: account.id })
      expect(admitted).toBeGreaterThan(0)
      expect(admitted).toBeLessThan(120)
      expect(final.balance).toBeGreaterThanOrEqual(0)
      expect(final.reserved).toBe(0)
      expect(summary).toMatchObject({
        requests: admitted,
        spent: admitted * 17_000,
        inputTokens: admitted * 10,
        cachedInputTokens: admitted * 2,
      })
      expect(1_000_000 - final.balance).toBe(summary.spent)
      expect((await store.keys.findById(record.id))!.spent).toBe(summary.spent)
      expect((await store.keys.findById(record.id))!.lastUsedAt).not.toBeNull()
    })

    test('ledger: a key budget — two instances never let spent + holds pass it; a spent budget is refused with 403', async () => {
      const account = await store.accounts.create(`budget-${name}`, 1000)
      await store.accounts.credit(account.id, 10_000_000, 'seed', 'test', Date.now())
      const budget = 100_000
      const { record } = await createKey(store.keys, { accountId: account.id, budget })
      const ledgers = [new Ledger(store.ledger), new Ledger(other.ledger)]
      const refusals = new Set<string>()
      let admitted = 0
      // Each request holds 7 000 and costs 3 000: the balance could pay for all of them, the budget cannot.
      await Promise.all(
        Array.from({ length: 120 }, async (_, index) => {
          const ledger = ledgers[index % 2]!
          try {
            const hold = await ledger.placeHold(account.id, record.id, 7_000, budget)
            admitted++
            await Bun.sleep(index % 4)
            ledger.settle(hold, usage(account.id, record.id, 3_000))
          } catch (error) {
            refusals.add((error as { code?: string }).code ?? String(error))
          }
        }),
      )
      await Promise.all(ledgers.map((ledger) => ledger.drain()))
      const spent = (await store.keys.findById(record.id))!.spent
      expect(refusals).toEqual(new Set(['budget_exceeded']))
      expect(spent).toBe(admitted * 3_000)
      expect(spent).toBeLessThanOrEqual(budget)
      expect((await store.usage.summarize({ keyId: record.id })).spent).toBe(spent)
      expect((await store.accounts.findById(account.id))!.reserved).toBe(0)
      // Nothing is still reserved against the budget: exactly what is left can be held, one unit more cannot.
      const ledger = new Ledger(store.ledger)
      await expect(ledger.placeHold(account.id, record.id, budget - spent + 1, budget)).rejects.toMatchObject({
        status: 403,
        code: 'budget_exceeded',
      })
      void ledger.settle(await ledger.placeHold(account.id, record.id, budget - spent, budget), usage(account.id, record.id, 0))
      await ledger.drain()
    })

    test('ledger: budget holds left by a crash give the budget back on the next start', async () => {
      const account = await store.accounts.create(`budget-crash-${name}`, 1000)
      await store.accounts.credit(account.id, 50_000, 'seed', 'test', Date.now())
      const { record } = await createKey(store.keys, { accountId: account.id, budget: 20_000 })
      await new Ledger(store.ledger).placeHold(account.id, record.id, 20_000, 20_000) // the process "dies" here
      await expect(new Ledger(other.ledger).placeHold(account.id, record.id, 1, 20_000)).rejects.toMatchObject({ code: 'budget_exceeded' })
      await backend.silence()
      expect(await other.ledger.startServing(Date.now() + 1)).toBeGreaterThan(0)
      const ledger = new Ledger(other.ledger)
      void ledger.settle(await ledger.placeHold(account.id, record.id, 20_000, 20_000), usage(account.id, record.id, 0))
      await ledger.drain()
      expect((await store.accounts.findById(account.id))!).toMatchObject({ reserved: 0, balance: 50_000 })
    })

    test('ledger: writing committed bills again (a spool replayed after its batch landed) moves no money twice', async () => {
      const account = await store.accounts.create(`replay-${name}`, 1000)
      await store.accounts.credit(account.id, 1_000_000, 'seed', 'test', Date.now())
      const { record } = await createKey(store.keys, { accountId: account.id, budget: 500_000 })
      const ledger = new Ledger(store.ledger)
      const holds = [
        await ledger.placeHold(account.id, record.id, 50_000, 500_000),
        await ledger.placeHold(account.id, record.id, 50_000, 500_000),
      ]
      const bills = holds.map((hold) => ({
        kind: 'settle' as const,
        leaseId: hold.id,
        budgetKeyId: hold.budgetKeyId,
        usage: usage(account.id, record.id, 7_000),
      }))
      await store.ledger.write(bills)
      const once = (await store.accounts.findById(account.id))!
      // The same two again, and again with a third that is new (and twice): only the new one counts, once.
      await store.ledger.write(bills, { replay: true })
      const third = { ...bills[0]!, usage: usage(account.id, record.id, 5_000) }
      await store.ledger.write([bills[1]!, third, bills[0]!, third], { replay: true })
      expect((await store.accounts.findById(account.id))!).toMatchObject({ balance: once.balance - 5_000, reserved: once.reserved - 5_000 })
      expect(await store.usage.summarize({ accountId: account.id })).toMatchObject({ requests: 3, spent: 19_000 })
      expect((await store.keys.findById(record.id))!.spent).toBe(19_000)
    })

    test('ledger: a bill for a hold released meanwhile (its owner declared gone) debits and releases nothing twice', async () => {
      const account = await store.accounts.create(`released-${name}`, 1000)
      await store.accounts.credit(account.id, 1_000_000, 'seed', 'test', Date.now())
      const { record } = await createKey(store.keys, { accountId: account.id, budget: 500_000 })
      const ledger = new Ledger(store.ledger)
      const hold = await ledger.placeHold(account.id, record.id, 50_000, 500_000)
      // The owner falls silent; the next start releases its hold (all of its lease).
      await backend.silence()
      expect(await other.ledger.startServing(Date.now() + 1)).toBeGreaterThan(0)
      expect((await store.accounts.findById(account.id))!.reserved).toBe(0)
      // Then its request ends, and its lease is given back: the debit lands, nothing is released a second time.
      await store.ledger.write([
        { kind: 'settle', leaseId: hold.id, budgetKeyId: hold.budgetKeyId, usage: usage(account.id, record.id, 30_000) },
      ])
      await store.ledger.write(
        [{ kind: 'release', leaseId: hold.id, accountId: account.id, amount: 20_000, budgetKeyId: hold.budgetKeyId }],
        { batchId: 'batch_released_once' },
      )
      expect((await store.accounts.findById(account.id))!).toMatchObject({ balance: 970_000, reserved: 0 })
      const key = (await store.keys.findById(record.id))!
      expect(key.spent).toBe(30_000)
      // The budget's own reservation, checked the way a reservation sees it: all of the unspent budget is free again.
      await expect(new Ledger(other.ledger).placeHold(account.id, record.id, 470_000, 500_000)).resolves.toMatchObject({ amount: 470_000 })
    })

    // A commit can succeed while its answer is lost or late (a connection cut at that moment, a write past its
    // deadline): the batch is then written again. Releases carry no request id; the batch's id makes that a no-op.
    {
      test('ledger: a batch of releases written twice under its id is applied once', async () => {
        const account = await store.accounts.create(`release-twice-${name}`, 1000)
        await store.accounts.credit(account.id, 1_000_000, 'seed', 'test', Date.now())
        const ledger = new Ledger(store.ledger, { leaseIdleMs: 60_000 })
        const hold = await ledger.placeHold(account.id, 'k', 100_000)
        const reserved = (await store.accounts.findById(account.id))!.reserved
        const batch = [{ kind: 'release' as const, leaseId: hold.id, accountId: account.id, amount: 60_000 }]
        await store.ledger.write(batch, { batchId: 'batch_twice' })
        await store.ledger.write(batch, { batchId: 'batch_twice', replay: true })
        expect((await store.accounts.findById(account.id))!.reserved).toBe(reserved - 60_000)
      })
    }

    test('ledger: holds left by a crash are released on the next start', async () => {
      const account = await store.accounts.create(`crash-${name}`, 1000)
      await store.accounts.credit(account.id, 50_000, 'seed', 'test', Date.now())
      await new Ledger(store.ledger).placeHold(account.id, 'k', 10_000) // the process "dies" here
      expect((await store.accounts.findById(account.id))!.reserved).toBeGreaterThan(0)
      await backend.silence()
      expect(await other.ledger.startServing(Date.now() + 1)).toBeGreaterThan(0)
      expect((await store.accounts.findById(account.id))!).toMatchObject({ reserved: 0, balance: 50_000 })
    })
  })
}
