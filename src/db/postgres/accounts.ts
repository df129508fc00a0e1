import { and, desc, eq, sql } from 'drizzle-orm'
import { balanceOutOfRange, maxBalance } from '../../domain/accounts.ts'
import type { AccountRepository } from '../../domain/repositories.ts'
import { accounts, ledgerEntries } from './schema.ts'
import type { PostgresDatabase } from './store.ts'

export function createPostgresAccounts(db: PostgresDatabase): AccountRepository {
  return {
    async create(name, createdAt) {
      const [account] = await db.insert(accounts).values({ name, createdAt }).returning()
      return account!
    },
    async findByName(name) {
      const [account] = await db.select().from(accounts).where(eq(accounts.name, name))
      return account
    },
    async findById(id) {
      const [account] = await db.select().from(accounts).where(eq(accounts.id, id))
      return account
    },
    async list() {
      return db.select().from(accounts).orderBy(accounts.name)
    },
    async credit(accountId, amount, note, actor, at) {
      return db.transaction(async (tx) => {
        const [account] = await tx.update(accounts)
          .set({ balance: sql`${accounts.balance} + ${amount}` })
          .where(and(eq(accounts.id, accountId), sql`${accounts.balance} + ${amount} between 0 and ${maxBalance}`))
          .returning()
        if (!account) {
          const [current] = await tx.select().from(accounts).where(eq(accounts.id, accountId))
          throw current ? balanceOutOfRange(current.balance, amount) : new Error(`account ${accountId} does not exist`)
        }
        await tx.insert(ledgerEntries).values({ accountId, amount, balanceAfter: account.balance, note, actor, createdAt: at })
        return account
      })
    },
    async ledgerEntries(accountId) {
      return db.select().from(ledgerEntries).where(eq(ledgerEntries.accountId, accountId))
        .orderBy(desc(ledgerEntries.createdAt), desc(ledgerEntries.id))
    },
  }
}
