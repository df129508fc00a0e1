import { and, eq, lt, sql } from 'drizzle-orm'
import type { LedgerRepository } from '../repositories.ts'
import { accounts, apiKeys, holds, usageRecords } from './schema.ts'
import type { SqliteDatabase } from './store.ts'

export function createSqliteLedger(db: SqliteDatabase): LedgerRepository {
  return {
    async placeHold(hold) {
      // `immediate` takes the write lock before reading, so two processes cannot both see the same free balance.
      return db.transaction((tx) => {
        const reserved = tx.update(accounts)
          .set({ reserved: sql`${accounts.reserved} + ${hold.amount}` })
          .where(and(eq(accounts.id, hold.accountId), sql`${accounts.balance} - ${accounts.reserved} >= ${hold.amount}`))
          .returning({ id: accounts.id }).all()
        if (reserved.length === 0) return false
        tx.insert(holds).values(hold).run()
        return true
      }, { behavior: 'immediate' })
    },

    async settle(settlements) {
      if (settlements.length === 0) return
      db.transaction((tx) => {
        for (const { hold, usage } of settlements) {
          // A hold already released by crash recovery no longer counts in `reserved`.
          const released = tx.delete(holds).where(eq(holds.id, hold.id)).returning({ amount: holds.amount }).all()
          const releasedAmount = released[0]?.amount ?? 0
          const account = tx.select({ balance: accounts.balance, reserved: accounts.reserved })
            .from(accounts).where(eq(accounts.id, hold.accountId)).get()
          if (!account) continue
          // The hold bounds the cost, so this cap only bites if an upstream ignored the output limit:
          // the balance never goes below zero, and the usage row records what was actually debited.
          const available = account.balance - (account.reserved - releasedAmount)
          const debit = Math.max(0, Math.min(usage.cost, available))
          tx.update(accounts)
            .set({ balance: sql`${accounts.balance} - ${debit}`, reserved: sql`${accounts.reserved} - ${releasedAmount}` })
            .where(eq(accounts.id, hold.accountId)).run()
          tx.update(apiKeys)
            .set({ spent: sql`${apiKeys.spent} + ${debit}`, lastUsedAt: sql`max(coalesce(${apiKeys.lastUsedAt}, 0), ${usage.createdAt})` })
            .where(eq(apiKeys.id, usage.keyId)).run()
          tx.insert(usageRecords).values({ ...usage, cost: debit }).run()
        }
      }, { behavior: 'immediate' })
    },

    async releaseStaleHolds(before) {
      return db.transaction((tx) => {
        const stale = tx.delete(holds).where(lt(holds.createdAt, before)).returning().all()
        for (const hold of stale) {
          tx.update(accounts).set({ reserved: sql`${accounts.reserved} - ${hold.amount}` }).where(eq(accounts.id, hold.accountId)).run()
        }
        return stale.length
      }, { behavior: 'immediate' })
    },
  }
}
