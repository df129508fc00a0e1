import { expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openPostgresStore } from '../src/db/postgres/store.ts'
import { openSqliteStore } from '../src/db/sqlite/store.ts'
import { Ledger } from '../src/domain/ledger.ts'
import { createTestDatabase } from './support/postgres.ts'
import { bill } from './support/usage-records.ts'

/**
 * An idle lease goes back to its account in a batch written up to `flushMs` later. A request in between must not be
 * refused for money while that release is still on its way (it was: a 403 with the balance nearly whole, CI's
 * upstream-tls failures): the ledger writes the release first and asks again. On both databases, whose writes are
 * synchronous (SQLite) and not (PostgreSQL).
 */
const backends = {
  SQLite: async () => ({ store: openSqliteStore(join(mkdtempSync(join(tmpdir(), 'lease-race-')), 'tollgate.db')), drop: async () => {} }),
  PostgreSQL: async () => {
    const database = await createTestDatabase()
    return { store: openPostgresStore(database.url), drop: () => database.drop() }
  },
}

for (const [name, open] of Object.entries(backends)) {
  test(`${name}: a request just after its account's idle lease was given back is served, and billed once`, async () => {
    const { store, drop } = await open()
    try {
      await store.migrate()
      const account = await store.accounts.create('returning', Date.now())
      await store.accounts.credit(account.id, 100_000, 'test', 'test', Date.now())
      // A lease grows by up to 20 holds: this one takes the whole balance. Its release rides a batch 1 s later.
      const ledger = new Ledger(store.ledger, { leaseIdleMs: 20, flushMs: 1_000 })
      await ledger.settle(await ledger.placeHold(account.id, 'k', 10_000), bill(account.id, 'k', 10))
      await Bun.sleep(80) // idle: the lease has left this process, its money not yet back in the database
      const hold = await ledger.placeHold(account.id, 'k', 10_000)
      await ledger.settle(hold, bill(account.id, 'k', 10))
      await ledger.drain() // gives back what is left and writes it
      expect(await store.accounts.findById(account.id)).toMatchObject({ balance: 99_980, reserved: 0 })
      expect((await store.usage.summarize({ accountId: account.id })).requests).toBe(2)
    } finally {
      await store.close()
      await drop()
    }
  }, 20_000)
}
