import { and, desc, eq, sql } from 'drizzle-orm'
import { balanceOutOfRange, maxBalance } from '../../domain/accounts.ts'
import type { AccountRepository } from '../../domain/repositories.ts'
import { writeAudit } from './audit.ts'
import { accounts, ledgerEntries } from './schema.ts'
import type { SqliteDatabase } from './store.ts'

type Transaction = Parameters<Parameters<SqliteDatabase['transaction']>[0]>[0]

/** Move money, with its ledger entry, inside the caller's transaction; throws (undoing it all) when out of range. */
function applyCredit(tx: Transaction, accountId: number, amount: number, note: string, actor: string, at: number) {
  const account = tx
    .update(accounts)
    .set({ balance: sql`${accounts.balance} + ${amount}` })
    .where(and(eq(accounts.id, accountId), sql`${accounts.balance} + ${amount} between 0 and ${maxBalance}`))
    .returning()
    .get()
  if (!account) {
    const current = tx.select().from(accounts).where(eq(accounts.id, accountId)).get()
    throw current ? balanceOutOfRange(current.balance, amount) : new Error(`account ${accountId} does not exist`)
  }
  tx.insert(ledgerEntries).values({ accountId, amount, balanceAfter: account.balance, note, actor, createdAt: at }).run()
  return account
}

export function createSqliteAccounts(db: SqliteDatabase): AccountRepository {
  return {
    async create(name, createdAt, options = {}) {
      return db.transaction(
        (tx) => {
          const created = tx.insert(accounts).values({ name, createdAt }).returning().get()
          const { opening, audit } = options
          const account = opening ? applyCredit(tx, created.id, opening.amount, opening.note, opening.actor, createdAt) : created
          writeAudit(tx, audit?.(undefined, account))
          return account
        },
        { behavior: 'immediate' },
      )
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
    async credit(accountId, amount, note, actor, at, audit) {
      return db.transaction(
        (tx) => {
          const before = tx.select().from(accounts).where(eq(accounts.id, accountId)).get()
          const account = applyCredit(tx, accountId, amount, note, actor, at)
          writeAudit(tx, audit?.(before, account))
          return account
        },
        { behavior: 'immediate' },
      )
    },
    async ledgerEntries(accountId) {
      return db
        .select()
        .from(ledgerEntries)
        .where(eq(ledgerEntries.accountId, accountId))
        .orderBy(desc(ledgerEntries.createdAt), desc(ledgerEntries.id))
        .all()
    },
  }
}
