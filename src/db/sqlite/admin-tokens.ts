import { and, eq, isNull } from 'drizzle-orm'
import type { AdminTokenRepository } from '../../domain/repositories.ts'
import { writeAudit } from './audit.ts'
import { adminTokens } from './schema.ts'
import type { SqliteDatabase } from './store.ts'

export function createSqliteAdminTokens(db: SqliteDatabase): AdminTokenRepository {
  return {
    async insert(token, audit) {
      db.transaction(
        (tx) => {
          tx.insert(adminTokens).values(token).run()
          writeAudit(tx, audit?.(undefined, token))
        },
        { behavior: 'immediate' },
      )
    },
    async findById(id) {
      return db.select().from(adminTokens).where(eq(adminTokens.id, id)).get()
    },
    async findByHash(hash) {
      return db.select().from(adminTokens).where(eq(adminTokens.hash, hash)).get()
    },
    async list() {
      return db.select().from(adminTokens).orderBy(adminTokens.createdAt, adminTokens.id).all()
    },
    async revoke(id, at, audit) {
      return db.transaction(
        (tx) => {
          const before = tx.select().from(adminTokens).where(eq(adminTokens.id, id)).get()
          const after = tx
            .update(adminTokens)
            .set({ revokedAt: at })
            .where(and(eq(adminTokens.id, id), isNull(adminTokens.revokedAt)))
            .returning()
            .get()
          if (after) writeAudit(tx, audit?.(before, after))
          return after !== undefined
        },
        { behavior: 'immediate' },
      )
    },
    async touch(id, at) {
      db.update(adminTokens).set({ lastUsedAt: at }).where(eq(adminTokens.id, id)).run()
    },
  }
}
