import { and, desc, eq, sql } from 'drizzle-orm'
import { balanceOutOfRange, maxBalance } from '../../domain/accounts.ts'
import type { AccountRepository } from '../../domain/repositories.ts'
import { accounts, ledgerEntries } from './schema.ts'
import type { SqliteDatabase } from './store.ts'

export function createSqliteAccounts(db: SqliteDatabase): AccountRepository {
  return {
    async create(name, createdAt) {
      return db.insert(accounts).values({ name, createdAt }).returning().get()
    },
    async findByName(name) {
      return db.select().from(accounts).where(eq(accounts.name, name)).get()
    },
    async findById(id) {
      return db.select().from(accounts).where(eq(accounts.id, id)).get()
    },
    async list() {
      return db.select().from(accounts).orderBy(accounts.name).all()
    },
    async credit(accountId, amount, note, actor, at) {
      return db.transaction((tx) => {
        const account = tx.update(accounts)
          .set({ balance: sql`${accounts.balance} + ${amount}` })
          .where(and(eq(accounts.id, accountId), sql`${accounts.balance} + ${amount} between 0 and ${maxBalance}`))
          .returning().get()
        if (!account) {
          const current = tx.select().from(accounts).where(eq(accounts.id, accountId)).get()
          throw current ? balanceOutOfRange(current.balance, amount) : new Error(`account ${accountId} does not exist`)
        }
        tx.insert(ledgerEntries).values({ accountId, amount, balanceAfter: account.balance, note, actor, createdAt: at }).run()
        return account
      }, { behavior: 'immediate' })
    },
    async ledgerEntries(accountId) {
      return db.select().from(ledgerEntries).where(eq(ledgerEntries.accountId, accountId))
        .orderBy(desc(ledgerEntries.createdAt), desc(ledgerEntries.id)).all()
    },
  }
}
