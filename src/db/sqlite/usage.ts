import { and, eq, gte, lt, sql, type SQL } from 'drizzle-orm'
import type { UsageRepository } from '../repositories.ts'
import { usageRecords } from './schema.ts'
import type { SqliteDatabase } from './store.ts'
import type { UsageFilter } from '../records.ts'

export function usageConditions(filter: UsageFilter): SQL | undefined {
  const conditions: SQL[] = []
  if (filter.accountId !== undefined) conditions.push(eq(usageRecords.accountId, filter.accountId))
  if (filter.keyId !== undefined) conditions.push(eq(usageRecords.keyId, filter.keyId))
  if (filter.since !== undefined) conditions.push(gte(usageRecords.createdAt, filter.since))
  if (filter.until !== undefined) conditions.push(lt(usageRecords.createdAt, filter.until))
  return conditions.length ? and(...conditions) : undefined
}

export function createSqliteUsage(db: SqliteDatabase): UsageRepository {
  return {
    async summarize(filter) {
      const row = db.select({
        requests: sql<number>`count(*)`,
        inputTokens: sql<number>`coalesce(sum(${usageRecords.inputTokens}), 0)`,
        cachedInputTokens: sql<number>`coalesce(sum(${usageRecords.cachedInputTokens}), 0)`,
        outputTokens: sql<number>`coalesce(sum(${usageRecords.outputTokens}), 0)`,
        spent: sql<number>`coalesce(sum(${usageRecords.cost}), 0)`,
      }).from(usageRecords).where(usageConditions(filter)).get()
      return row ?? { requests: 0, inputTokens: 0, cachedInputTokens: 0, outputTokens: 0, spent: 0 }
    },
  }
}
