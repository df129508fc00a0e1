import { and, desc, eq, sql } from 'drizzle-orm'
import { balanceOutOfRange, maxBalance } from '../../domain/accounts.ts'
import type { AccountRepository } from '../../domain/repositories.ts'
import { writeAudit } from './audit.ts'
import { accounts, ledgerEntries } from './schema.ts'
import type { PostgresDatabase } from './store.ts'

type Transaction = Parameters<Parameters<PostgresDatabase['transaction']>[0]>[0]

/** Move money, with its ledger entry, inside the caller's transaction; throws (undoing it all) when out of range. */
async function applyCredit(tx: Transaction, accountId: number, amount: number, note: string, actor: string, at: number) {
  const [account] = await tx
    .update(accounts)
    .set({ balance: sql`${accounts.balance} + ${amount}` })
    .where(and(eq(accounts.id, accountId), sql`${accounts.balance} + ${amount} between 0 and ${maxBalance}`))
    .returning()
  if (!account) {
    const [current] = await tx.select().from(accounts).where(eq(accounts.id, accountId))
    throw current ? balanceOutOfRange(current.balance, amount) : new Error(`account ${accountId} does not exist`)
  }
  await tx.insert(ledgerEntries).values({ accountId, amount, balanceAfter: account.balance, note, actor, createdAt: at })
  return account
}

export function createPostgresAccounts(db: PostgresDatabase): AccountRepository {
  return {
    async create(name, createdAt, options = {}) {
      return db.transaction(async (tx) => {
        const [created] = await tx.insert(accounts).values({ name, createdAt }).returning()
        const { opening, audit } = options
        const account = opening ? await applyCredit(tx, created!.id, opening.amount, opening.note, opening.actor, createdAt) : created!
        await writeAudit(tx, audit?.(undefined, account))
        return account
      })
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
    async credit(accountId, amount, note, actor, at, audit) {
      return db.transaction(async (tx) => {
        // Locked until the commit: the row's "before" is the balance this credit changed, not one a concurrent credit left.
        const [before] = await tx.select().from(accounts).where(eq(accounts.id, accountId)).for('update')
        const account = await applyCredit(tx, accountId, amount, note, actor, at)
        await writeAudit(tx, audit?.(before, account))
        return account
      })
    },
    async ledgerEntries(accountId) {
      return db
        .select()
        .from(ledgerEntries)
        .where(eq(ledgerEntries.accountId, accountId))
        .orderBy(desc(ledgerEntries.createdAt), desc(ledgerEntries.id))
    },
  }
}
