import { eq, lte } from 'drizzle-orm'
import type { SessionRepository } from '../../domain/repositories.ts'
import { writeAudit } from './audit.ts'
import { sessions } from './schema.ts'
import type { PostgresDatabase } from './store.ts'

export function createPostgresSessions(db: PostgresDatabase): SessionRepository {
  return {
    async create(session, audit) {
      await db.transaction(async (tx) => {
        await tx.insert(sessions).values(session)
        await writeAudit(tx, audit)
      })
    },
    async find(id) {
      const [session] = await db.select().from(sessions).where(eq(sessions.id, id))
      return session
    },
    async extend(id, lastSeenAt, expiresAt) {
      await db.update(sessions).set({ lastSeenAt, expiresAt }).where(eq(sessions.id, id))
    },
    async delete(id) {
      await db.delete(sessions).where(eq(sessions.id, id))
    },
    async deleteForUser(userId) {
      return (await db.delete(sessions).where(eq(sessions.userId, userId)).returning({ id: sessions.id })).length
    },
    async deleteExpired(now) {
      return (await db.delete(sessions).where(lte(sessions.expiresAt, now)).returning({ id: sessions.id })).length
    },
  }
}
