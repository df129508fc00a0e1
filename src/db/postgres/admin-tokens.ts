import { and, eq, isNull } from 'drizzle-orm'
import type { AdminTokenRepository } from '../../domain/repositories.ts'
import { adminTokens } from './schema.ts'
import type { PostgresDatabase } from './store.ts'

export function createPostgresAdminTokens(db: PostgresDatabase): AdminTokenRepository {
  return {
    async insert(token) {
      await db.insert(adminTokens).values(token)
    },
    async findById(id) {
      const [token] = await db.select().from(adminTokens).where(eq(adminTokens.id, id))
      return token
    },
    async findByHash(hash) {
      const [token] = await db.select().from(adminTokens).where(eq(adminTokens.hash, hash))
      return token
    },
    async list() {
      return db.select().from(adminTokens).orderBy(adminTokens.createdAt, adminTokens.id)
    },
    async revoke(id, at) {
      const rows = await db.update(adminTokens).set({ revokedAt: at })
        .where(and(eq(adminTokens.id, id), isNull(adminTokens.revokedAt))).returning({ id: adminTokens.id })
      return rows.length > 0
    },
    async touch(id, at) {
      await db.update(adminTokens).set({ lastUsedAt: at }).where(eq(adminTokens.id, id))
    },
  }
}
