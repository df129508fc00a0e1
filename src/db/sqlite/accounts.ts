import { desc, eq, sql } from 'drizzle-orm'
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
          .where(eq(accounts.id, accountId))
          .returning().get()
        if (!account) throw new Error(`account ${accountId} does not exist`)
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
