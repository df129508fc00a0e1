import { describe, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Hold, UsageRecord } from './records.ts'
import type { LedgerRepository } from './repositories.ts'
import { openSqliteStore } from '../db/sqlite/store.ts'
import { Ledger } from './ledger.ts'
import { bill } from '../../test/support/usage-records.ts'

/** A plain chat bill of `cost` under key 'k'. */
const usage = (accountId: number, cost: number): UsageRecord => bill(accountId, 'k', cost)

describe('Ledger with leases over SQLite', () => {
  test('two processes sharing one database never overdraw, and spend equals the usage rows', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'ledger-')), 'ledger.db')
    const first = openSqliteStore(path)
    await first.migrate()
    const second = openSqliteStore(path) // another "instance" on the same file
    const account = await first.accounts.create('shared', Date.now())
    await first.accounts.credit(account.id, 1_000_000, 'test', 'test', Date.now())
    const ledgers = [new Ledger(first.ledger), new Ledger(second.ledger)]
    let admitted = 0
    let refused = 0
    // Each request holds 30 000 and costs 12 345: 1 000 000 cannot pay for all 200.
    await Promise.all(
      Array.from({ length: 200 }, async (_, index) => {
        const ledger = ledgers[index % 2]!
        try {
          const hold = await ledger.placeHold(account.id, 'k', 30_000)
          admitted++
          await Bun.sleep(index % 5)
          ledger.settle(hold, usage(account.id, 12_345))
        } catch {
          refused++
        }
      }),
    )
    await Promise.all(ledgers.map((ledger) => ledger.drain()))
    const final = (await first.accounts.findById(account.id))!
    const summary = await first.usage.summarize({ accountId: account.id })
    expect(admitted + refused).toBe(200)
    expect(refused).toBeGreaterThan(0)
    expect(final.balance).toBeGreaterThanOrEqual(0)
    expect(final.reserved).toBe(0)
    expect(summary.requests).toBe(admitted)
    expect(1_000_000 - final.balance).toBe(summary.spent)
    expect(summary.spent).toBe(admitted * 12_345)
  })

  test('a request is never charged more than its hold, and a failure costs nothing', async () => {
    const store = openSqliteStore(':memory:')
    await store.migrate()
    const account = await store.accounts.create('capped', Date.now())
    await store.accounts.credit(account.id, 100_000, 'test', 'test', Date.now())
    const ledger = new Ledger(store.ledger)
    void ledger.settle(await ledger.placeHold(account.id, 'k', 1_000), usage(account.id, 5_000))
    void ledger.settle(await ledger.placeHold(account.id, 'k', 1_000), usage(account.id, 0))
    await ledger.drain()
    const final = (await store.accounts.findById(account.id))!
    expect(final.balance).toBe(99_000)
    expect(final.reserved).toBe(0)
  })

  test('an idle lease goes back to the account on its own', async () => {
    const store = openSqliteStore(':memory:')
    await store.migrate()
    const account = await store.accounts.create('idle', Date.now())
    await store.accounts.credit(account.id, 100_000, 'test', 'test', Date.now())
    const ledger = new Ledger(store.ledger, { leaseIdleMs: 20 })
    void ledger.settle(await ledger.placeHold(account.id, 'k', 1_000), usage(account.id, 10))
    expect((await store.accounts.findById(account.id))!.reserved).toBeGreaterThan(0)
    await Bun.sleep(60)
    await ledger.flush()
    expect((await store.accounts.findById(account.id))!).toMatchObject({ reserved: 0, balance: 99_990 })
  })

  test('a lease used again while idle waits its whole idle time from its last request, busy or not when its timer fires', async () => {
    const store = openSqliteStore(':memory:')
    await store.migrate()
    const account = await store.accounts.create('reused', Date.now())
    await store.accounts.credit(account.id, 100_000, 'test', 'test', Date.now())
    const ledger = new Ledger(store.ledger, { leaseIdleMs: 200 })
    const reserved = async () => {
      await ledger.flush()
      return (await store.accounts.findById(account.id))!.reserved
    }
    void ledger.settle(await ledger.placeHold(account.id, 'k', 1_000), usage(account.id, 10)) // idle from 0: timer at 200
    await Bun.sleep(75)
    const second = await ledger.placeHold(account.id, 'k', 1_000)
    await Bun.sleep(50)
    void ledger.settle(second, usage(account.id, 10)) // idle from ~125
    await Bun.sleep(125)
    expect(await reserved()).toBeGreaterThan(0) // ~250 ms: the timer found it idle for 75 ms only and waits on
    const third = await ledger.placeHold(account.id, 'k', 1_000)
    await Bun.sleep(150) // busy when the timer fires again (~325 ms)
    void ledger.settle(third, usage(account.id, 10)) // idle from ~400
    await Bun.sleep(100)
    expect(await reserved()).toBeGreaterThan(0)
    await Bun.sleep(300)
    expect(await reserved()).toBe(0)
    expect((await store.accounts.findById(account.id))!.balance).toBe(99_970)
  })
})

describe('usage rows written in one batch', () => {
  test('a batch longer than one multi-row INSERT keeps every row, field for field, and debits their sum', async () => {
    const store = openSqliteStore(':memory:')
    await store.migrate()
    const account = await store.accounts.create('batched', Date.now())
    await store.accounts.credit(account.id, 10_000_000, 'test', 'test', Date.now())
    const ledger = new Ledger(store.ledger, { flushMs: 60_000 }) // nothing is written before drain: one batch
    // 70 rows: two full INSERTs of 32 rows and one of 6, with values that differ per row.
    for (let index = 0; index < 70; index++) {
      const hold = await ledger.placeHold(account.id, 'k', 1_000)
      void ledger.settle(hold, {
        ...usage(account.id, index * 10),
        requestId: `r${index}`,
        outputTokens: index,
        status: index % 7 === 0 ? 502 : 200,
        errorType: index % 7 === 0 ? 'upstream' : null,
        stream: index % 2 === 0,
      })
    }
    await ledger.drain()
    const rows = await store.usage.listRequests({ accountId: account.id }, 100)
    expect(rows.length).toBe(70)
    for (const row of rows) {
      const index = Number(row.requestId.slice(1))
      expect([row.outputTokens, row.cost, row.status, row.errorType, row.stream]).toEqual([
        index,
        index * 10,
        index % 7 === 0 ? 502 : 200,
        index % 7 === 0 ? 'upstream' : null,
        index % 2 === 0,
      ])
    }
    const spent = ((69 * 70) / 2) * 10
    expect((await store.usage.summarize({ accountId: account.id })).spent).toBe(spent)
    expect((await store.accounts.findById(account.id))!.balance).toBe(10_000_000 - spent)
  })
})

describe('batches behind an asynchronous repository', () => {
  test('a flush writes what was queued when it began; settlements made during its write wait for the next batch', async () => {
    const batches: number[] = []
    const repository: LedgerRepository = {
      reserve: async ({ want }) => ({ granted: want }),
      write: async (batch) => {
        batches.push(batch.length)
        await Bun.sleep(5) // a worker thread or a network round trip
      },
      ping: async () => {},
      startServing: async () => 0,
    }
    const ledger = new Ledger(repository, { flushMs: 60_000 })
    const hold: Hold = { id: 'lease_a', accountId: 1, keyId: 'k', amount: 1_000, createdAt: 0 }
    for (let index = 0; index < 10; index++) void ledger.settle(hold, usage(1, 10))
    const flushing = ledger.flush()
    await Bun.sleep(1)
    for (let index = 0; index < 3; index++) void ledger.settle(hold, usage(1, 10))
    await flushing
    // Writing the 3 at once would split one batch's worth into many small transactions under load.
    expect(batches).toEqual([10])
    expect(ledger.pending).toBe(3)
    await ledger.flush()
    expect(batches).toEqual([10, 3])
  })
})
