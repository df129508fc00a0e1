import { eq, lte } from 'drizzle-orm'
import type { SessionRepository } from '../../domain/repositories.ts'
import { writeAudit } from './audit.ts'
import { sessions } from './schema.ts'
import type { SqliteDatabase } from './store.ts'

export function createSqliteSessions(db: SqliteDatabase): SessionRepository {
  return {
    async create(session, audit) {
      db.transaction(
        (tx) => {
          tx.insert(sessions).values(session).run()
          writeAudit(tx, audit)
        },
        { behavior: 'immediate' },
      )
    },
    async find(id) {
      return db.select().from(sessions).where(eq(sessions.id, id)).get()
    },
    async extend(id, lastSeenAt, expiresAt) {
      db.update(sessions).set({ lastSeenAt, expiresAt }).where(eq(sessions.id, id)).run()
    },
    async delete(id) {
      db.delete(sessions).where(eq(sessions.id, id)).run()
    },
    async deleteForUser(userId) {
      return db.delete(sessions).where(eq(sessions.userId, userId)).returning({ id: sessions.id }).all().length
    },
    async deleteExpired(now) {
      return db.delete(sessions).where(lte(sessions.expiresAt, now)).returning({ id: sessions.id }).all().length
    },
  }
}
