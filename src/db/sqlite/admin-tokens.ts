import { and, eq, isNull } from 'drizzle-orm'
import type { AdminTokenRepository } from '../../domain/repositories.ts'
import { adminTokens } from './schema.ts'
import type { SqliteDatabase } from './store.ts'

export function createSqliteAdminTokens(db: SqliteDatabase): AdminTokenRepository {
  return {
    async insert(token) {
      db.insert(adminTokens).values(token).run()
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
    async revoke(id, at) {
      return db.update(adminTokens).set({ revokedAt: at })
        .where(and(eq(adminTokens.id, id), isNull(adminTokens.revokedAt))).returning({ id: adminTokens.id }).all().length > 0
    },
    async touch(id, at) {
      db.update(adminTokens).set({ lastUsedAt: at }).where(eq(adminTokens.id, id)).run()
    },
  }
}
