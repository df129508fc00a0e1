import { and, count, eq, gt, lte } from 'drizzle-orm'
import type { UserRecord } from '../../domain/records.ts'
import type { IdentityRepository } from '../../domain/single-sign-on/repository.ts'
import { writeAudit } from './audit.ts'
import { identities, signInFlows, users } from './schema.ts'
import type { PostgresDatabase } from './store.ts'

export function createPostgresIdentities(db: PostgresDatabase): IdentityRepository {
  return {
    async findIdentity(issuer, subject) {
      const [identity] = await db
        .select()
        .from(identities)
        .where(and(eq(identities.issuer, issuer), eq(identities.subject, subject)))
      return identity
    },
    async listForUser(userId) {
      return db.select().from(identities).where(eq(identities.userId, userId))
    },
    async createLinkedUser(user, identity, audit) {
      return db.transaction(async (tx) => {
        const [created] = await tx.insert(users).values(user).returning()
        await tx.insert(identities).values({ ...identity, userId: created!.id })
        await writeAudit(tx, audit?.(undefined, created as UserRecord))
        return created as UserRecord
      })
    },
    async link(identity) {
      await db.insert(identities).values(identity)
    },
    async recordSignIn(issuer, subject, email, at) {
      await db
        .update(identities)
        .set({ email, lastSignInAt: at })
        .where(and(eq(identities.issuer, issuer), eq(identities.subject, subject)))
    },
    async saveFlow(flow) {
      await db.insert(signInFlows).values(flow)
    },
    async takeFlow(id, now) {
      // DELETE … RETURNING: of two instances given the same state at once, exactly one gets the row.
      const [flow] = await db.delete(signInFlows).where(eq(signInFlows.id, id)).returning()
      return flow && flow.expiresAt > now ? flow : undefined
    },
    async countFlows(now, address) {
      const live = gt(signInFlows.expiresAt, now)
      const [row] = await db
        .select({ count: count() })
        .from(signInFlows)
        .where(address === undefined ? live : and(live, eq(signInFlows.address, address)))
      return row!.count
    },
    async deleteExpiredFlows(now) {
      return (await db.delete(signInFlows).where(lte(signInFlows.expiresAt, now)).returning({ id: signInFlows.id })).length
    },
  }
}
