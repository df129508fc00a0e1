import { desc, sql } from 'drizzle-orm'
import type { UsageRepository } from '../../domain/repositories.ts'
import { dayOf, readTotals, totalsColumns, usageConditions } from '../usage-query.ts'
import { usageRecords } from './schema.ts'
import type { PostgresDatabase } from './store.ts'

export function createPostgresUsage(db: PostgresDatabase): UsageRepository {
  const totals = totalsColumns(usageRecords)
  return {
    async summarize(filter) {
      const [row] = await db.select({ ...totals, cachedInputTokens: sql<string>`coalesce(sum(${usageRecords.cachedInputTokens}), 0)` })
        .from(usageRecords).where(usageConditions(usageRecords, filter))
      return { ...readTotals(row), cachedInputTokens: Number(row?.cachedInputTokens ?? 0) }
    },
    async listRequests(filter, limit, before) {
      return db.select().from(usageRecords).where(usageConditions(usageRecords, filter, before))
        .orderBy(desc(usageRecords.createdAt), desc(usageRecords.id)).limit(limit)
    },
    async dailyTotals(filter) {
      const day = dayOf(usageRecords)
      const rows = await db.select({ day, ...totals }).from(usageRecords).where(usageConditions(usageRecords, filter)).groupBy(day).orderBy(day)
      return rows.map((row) => ({ day: Number(row.day), ...readTotals(row) }))
    },
    async totalsBy(dimension, filter) {
      const column = usageRecords[dimension]
      const rows = await db.select({ group: column, ...totals }).from(usageRecords).where(usageConditions(usageRecords, filter))
        .groupBy(column).orderBy(desc(totals.spent))
      return rows.map((row) => ({ group: String(row.group), ...readTotals(row) }))
    },
  }
}
