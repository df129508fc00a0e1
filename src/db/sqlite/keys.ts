import { and, eq, gte, isNull } from 'drizzle-orm'
import type { KeyRecord } from '../../domain/records.ts'
import type { KeyRepository } from '../../domain/repositories.ts'
import { apiKeys } from './schema.ts'
import type { SqliteDatabase } from './store.ts'

type KeyRow = typeof apiKeys.$inferSelect

function toRecord(row: KeyRow): KeyRecord {
  // `reserved` is the ledger's (budget holds in flight), not part of what a key is.
  const { reserved: _, ...key } = row
  return { ...key, models: key.models === null ? null : (JSON.parse(key.models) as string[]) }
}

export function createSqliteKeys(db: SqliteDatabase): KeyRepository {
  return {
    async insert(key) {
      db.insert(apiKeys).values({ ...key, models: key.models === null ? null : JSON.stringify(key.models) }).run()
    },
    async findById(id) {
      const row = db.select().from(apiKeys).where(eq(apiKeys.id, id)).get()
      return row && toRecord(row)
    },
    async findByHash(hash) {
      const row = db.select().from(apiKeys).where(eq(apiKeys.hash, hash)).get()
      return row && toRecord(row)
    },
    async list(accountId) {
      const query = db.select().from(apiKeys)
      const rows = accountId === undefined ? query.orderBy(apiKeys.createdAt).all() : query.where(eq(apiKeys.accountId, accountId)).orderBy(apiKeys.createdAt).all()
      return rows.map(toRecord)
    },
    async revoke(id, at) {
      const result = db.update(apiKeys).set({ revokedAt: at, updatedAt: at })
        .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt))).returning({ id: apiKeys.id }).all()
      return result.length > 0
    },
    async update(id, changes, at) {
      const { models, ...rest } = changes
      const set = { ...rest, updatedAt: at, ...(models !== undefined && { models: models === null ? null : JSON.stringify(models) }) }
      const result = db.update(apiKeys).set(set).where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt))).returning({ id: apiKeys.id }).all()
      return result.length > 0
    },
    async changedSince(since) {
      return db.select().from(apiKeys).where(gte(apiKeys.updatedAt, since)).all().map(toRecord)
    },
  }
}
