import { and, count, eq, gt, lte } from 'drizzle-orm'
import type { UserRecord } from '../../domain/records.ts'
import type { IdentityRepository } from '../../domain/single-sign-on/repository.ts'
import { writeAudit } from './audit.ts'
import { identities, signInFlows, users } from './schema.ts'
import type { SqliteDatabase } from './store.ts'

export function createSqliteIdentities(db: SqliteDatabase): IdentityRepository {
  return {
    async findIdentity(issuer, subject) {
      return db
        .select()
        .from(identities)
        .where(and(eq(identities.issuer, issuer), eq(identities.subject, subject)))
        .get()
    },
    async listForUser(userId) {
      return db.select().from(identities).where(eq(identities.userId, userId)).all()
    },
    async createLinkedUser(user, identity, audit) {
      return db.transaction(
        (tx) => {
          const created = tx.insert(users).values(user).returning().get() as UserRecord
          tx.insert(identities)
            .values({ ...identity, userId: created.id })
            .run()
          writeAudit(tx, audit?.(undefined, created))
          return created
        },
        { behavior: 'immediate' },
      )
    },
    async link(identity) {
      db.insert(identities).values(identity).run()
    },
    async recordSignIn(issuer, subject, email, at) {
      db.update(identities)
        .set({ email, lastSignInAt: at })
        .where(and(eq(identities.issuer, issuer), eq(identities.subject, subject)))
        .run()
    },
    async saveFlow(flow) {
      db.insert(signInFlows).values(flow).run()
    },
    async takeFlow(id, now) {
      const flow = db.delete(signInFlows).where(eq(signInFlows.id, id)).returning().get()
      return flow && flow.expiresAt > now ? flow : undefined
    },
    async countFlows(now, address) {
      const live = gt(signInFlows.expiresAt, now)
      return db
        .select({ count: count() })
        .from(signInFlows)
        .where(address === undefined ? live : and(live, eq(signInFlows.address, address)))
        .get()!.count
    },
    async deleteExpiredFlows(now) {
      return db.delete(signInFlows).where(lte(signInFlows.expiresAt, now)).returning({ id: signInFlows.id }).all().length
    },
  }
}
