import { expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openSqliteStore } from '../src/db/sqlite/store.ts'
import type { LedgerWrite } from '../src/domain/records.ts'
import { bill } from './support/usage-records.ts'

// On SQLite what a lease still holds is kept in memory (src/db/sqlite/held-amounts.ts): its hold row is written when
// the lease is reserved and deleted when it is released, and a bill no longer shrinks it. These pin the money of that.

async function storeWithAccount(path: string, balance: number) {
  const store = openSqliteStore(path, { serving: true })
  await store.migrate()
  const account = await store.accounts.create('holds', Date.now())
  await store.accounts.credit(account.id, balance, 'test', 'test', Date.now())
  return { store, accountId: account.id }
}

const settle = (leaseId: string, accountId: number, cost: number): LedgerWrite => ({
  kind: 'settle',
  leaseId,
  usage: bill(accountId, 'k', cost),
})
const reservation = (leaseId: string, accountId: number, want: number) => ({
  leaseId,
  accountId,
  keyId: 'k',
  need: 1,
  want,
  at: Date.now(),
})

test('a server that dies after billing part of a lease: the next start gives back exactly what the lease still held', async () => {
  const path = join(mkdtempSync(join(tmpdir(), 'sqlite-holds-')), 'tollgate.db')
  const { store, accountId } = await storeWithAccount(path, 100_000)
  expect(await store.ledger.reserve(reservation('lease_a', accountId, 30_000))).toMatchObject({ granted: 30_000 })
  await store.ledger.write([settle('lease_a', accountId, 7_000)])
  await store.ledger.write([settle('lease_a', accountId, 5_000)])
  expect(await store.accounts.findById(accountId)).toMatchObject({ balance: 88_000, reserved: 18_000 })
  await store.close() // the server dies: its lease is never released

  const next = openSqliteStore(path, { serving: true })
  expect(await next.ledger.startServing(0)).toBe(1)
  // The hold row still says 30 000 (what the lease was granted); the 18 000 it held is what comes back.
  expect(await next.accounts.findById(accountId)).toMatchObject({ balance: 88_000, reserved: 0 })
  expect(await next.usage.summarize({ accountId })).toMatchObject({ requests: 2, spent: 12_000 })
  await next.close()
})

test('a bill whose commit fails takes nothing from its hold; written again it takes its cost once, and the release gives back the rest', async () => {
  const path = join(mkdtempSync(join(tmpdir(), 'sqlite-holds-')), 'tollgate.db')
  const { store, accountId } = await storeWithAccount(path, 100_000)
  await store.ledger.reserve(reservation('lease_b', accountId, 30_000))
  // A write that fails inside its transaction after its hold was taken from (as a full disk would at the account's
  // page), through a trigger another connection adds.
  const other = new Database(path)
  other.exec(`CREATE TABLE refuse_bills (on_flag INTEGER);
    INSERT INTO refuse_bills VALUES (1);
    CREATE TRIGGER refuse_bill AFTER UPDATE ON accounts WHEN EXISTS (SELECT 1 FROM refuse_bills)
    BEGIN SELECT RAISE(ABORT, 'refused for the test'); END;`)
  const first = settle('lease_b', accountId, 10_000)
  await expect(store.ledger.write([first])).rejects.toThrow('refused for the test')
  expect(await store.accounts.findById(accountId)).toMatchObject({ balance: 100_000, reserved: 30_000 })

  other.exec('DELETE FROM refuse_bills')
  await store.ledger.write([first])
  expect(await store.accounts.findById(accountId)).toMatchObject({ balance: 90_000, reserved: 20_000 })
  await store.ledger.write([{ kind: 'release', leaseId: 'lease_b', accountId, amount: 20_000 }], { batchId: 'batch_release_b' })
  expect(await store.accounts.findById(accountId)).toMatchObject({ balance: 90_000, reserved: 0 })
  expect(other.query("SELECT id FROM holds WHERE id = 'lease_b'").all()).toEqual([])
  other.close()
  await store.close()
})

test('a lease whose hold another start gave back, reserved again, holds only its new grant', async () => {
  // Only a second store on the file can give back a live server's holds (the serve lock keeps a second server out),
  // as the store contract tests do: the lease's memory of its old hold must not come back with its new row.
  const path = join(mkdtempSync(join(tmpdir(), 'sqlite-holds-')), 'tollgate.db')
  const store = openSqliteStore(path)
  await store.migrate()
  const accountId = (await store.accounts.create('holds', Date.now())).id
  await store.accounts.credit(accountId, 100_000, 'test', 'test', Date.now())
  await store.ledger.reserve(reservation('lease_c', accountId, 10_000))
  const other = openSqliteStore(path)
  expect(await other.ledger.startServing(0)).toBe(1)
  await store.ledger.reserve(reservation('lease_c', accountId, 5_000))
  // A bill larger than the new grant gives back only the grant: nothing of the first hold is left to take.
  await store.ledger.write([settle('lease_c', accountId, 8_000)])
  expect(await store.accounts.findById(accountId)).toMatchObject({ balance: 92_000, reserved: 0 })
  await other.close()
  await store.close()
})
