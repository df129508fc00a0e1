import { and, eq, gte, lt, sql, type SQL } from 'drizzle-orm'
import type { UsageFilter } from '../records.ts'
import type { UsageRepository } from '../repositories.ts'
import { usageRecords } from './schema.ts'
import type { PostgresDatabase } from './store.ts'

export function usageConditions(filter: UsageFilter): SQL | undefined {
  const conditions: SQL[] = []
  if (filter.accountId !== undefined) conditions.push(eq(usageRecords.accountId, filter.accountId))
  if (filter.keyId !== undefined) conditions.push(eq(usageRecords.keyId, filter.keyId))
  if (filter.since !== undefined) conditions.push(gte(usageRecords.createdAt, filter.since))
  if (filter.until !== undefined) conditions.push(lt(usageRecords.createdAt, filter.until))
  return conditions.length ? and(...conditions) : undefined
}

export function createPostgresUsage(db: PostgresDatabase): UsageRepository {
  return {
    async summarize(filter) {
      // Sums of bigint come back as numeric text; Number() is exact below 2^53.
      const [row] = await db.select({
        requests: sql<string>`count(*)`,
        inputTokens: sql<string>`coalesce(sum(${usageRecords.inputTokens}), 0)`,
        cachedInputTokens: sql<string>`coalesce(sum(${usageRecords.cachedInputTokens}), 0)`,
        outputTokens: sql<string>`coalesce(sum(${usageRecords.outputTokens}), 0)`,
        spent: sql<string>`coalesce(sum(${usageRecords.cost}), 0)`,
      }).from(usageRecords).where(usageConditions(filter))
      return {
        requests: Number(row?.requests ?? 0),
        inputTokens: Number(row?.inputTokens ?? 0),
        cachedInputTokens: Number(row?.cachedInputTokens ?? 0),
        outputTokens: Number(row?.outputTokens ?? 0),
        spent: Number(row?.spent ?? 0),
      }
    },
  }
}
