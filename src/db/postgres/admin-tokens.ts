import { and, eq, isNull } from 'drizzle-orm'
import type { AdminTokenRepository } from '../../domain/repositories.ts'
import { writeAudit } from './audit.ts'
import { adminTokens } from './schema.ts'
import type { PostgresDatabase } from './store.ts'

export function createPostgresAdminTokens(db: PostgresDatabase): AdminTokenRepository {
  return {
    async insert(token, audit) {
      await db.transaction(async (tx) => {
        await tx.insert(adminTokens).values(token)
        await writeAudit(tx, audit?.(undefined, token))
      })
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
    async revoke(id, at, audit) {
      return db.transaction(async (tx) => {
        const [before] = await tx.select().from(adminTokens).where(eq(adminTokens.id, id)).for('update')
        const [after] = await tx
          .update(adminTokens)
          .set({ revokedAt: at })
          .where(and(eq(adminTokens.id, id), isNull(adminTokens.revokedAt)))
          .returning()
        if (after) await writeAudit(tx, audit?.(before, after))
        return after !== undefined
      })
    },
    async touch(id, at) {
      await db.update(adminTokens).set({ lastUsedAt: at }).where(eq(adminTokens.id, id))
    },
  }
}
