import { and, eq, gte, isNull } from 'drizzle-orm'
import type { KeyRecord } from '../../domain/records.ts'
import type { KeyRepository } from '../../domain/repositories.ts'
import { apiKeys } from './schema.ts'
import type { PostgresDatabase } from './store.ts'

function toRecord(row: typeof apiKeys.$inferSelect): KeyRecord {
  // `reserved` is the ledger's (budget holds in flight), not part of what a key is.
  const { reserved: _, ...key } = row
  return { ...key, models: key.models === null ? null : (JSON.parse(key.models) as string[]) }
}

export function createPostgresKeys(db: PostgresDatabase): KeyRepository {
  return {
    async insert(key) {
      await db.insert(apiKeys).values({ ...key, models: key.models === null ? null : JSON.stringify(key.models) })
    },
    async findById(id) {
      const [row] = await db.select().from(apiKeys).where(eq(apiKeys.id, id))
      return row && toRecord(row)
    },
    async findByHash(hash) {
      const [row] = await db.select().from(apiKeys).where(eq(apiKeys.hash, hash))
      return row && toRecord(row)
    },
    async list(accountId) {
      const query = db.select().from(apiKeys)
      const rows = accountId === undefined ? await query.orderBy(apiKeys.createdAt) : await query.where(eq(apiKeys.accountId, accountId)).orderBy(apiKeys.createdAt)
      return rows.map(toRecord)
    },
    async revoke(id, at) {
      const rows = await db.update(apiKeys).set({ revokedAt: at, updatedAt: at })
        .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt))).returning({ id: apiKeys.id })
      return rows.length > 0
    },
    async update(id, changes, at) {
      const { models, ...rest } = changes
      const set = { ...rest, updatedAt: at, ...(models !== undefined && { models: models === null ? null : JSON.stringify(models) }) }
      const rows = await db.update(apiKeys).set(set).where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt))).returning({ id: apiKeys.id })
      return rows.length > 0
    },
    async changedSince(since) {
      return (await db.select().from(apiKeys).where(gte(apiKeys.updatedAt, since))).map(toRecord)
    },
  }
}
