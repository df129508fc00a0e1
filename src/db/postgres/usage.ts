import type { SQL } from 'bun'
import { desc, sql } from 'drizzle-orm'
import type { UsageRepository } from '../../domain/repositories.ts'
import * as usageQuery from '../usage-query.ts'
import { usageDaily, usageRecords } from './schema.ts'
import type { PostgresDatabase } from './store.ts'

/**
 * The transaction-scoped advisory lock one fold batch takes ('tollgate fold'): instances sharing the database fold
 * one batch at a time, so no two sum the same rows; a batch that cannot take it at once does nothing (`busy`).
 */
const foldLock = 0x746f6c6c666f6c64n

export function createPostgresUsage(db: PostgresDatabase, client: SQL): UsageRepository {
  const totals = usageQuery.totalsColumns(usageRecords)
  const folded = usageQuery.dailyTotalsColumns(usageDaily)
  return {
    async summarize(filter) {
      const [[row], [old]] = await Promise.all([
        db
          .select({ ...totals, cachedInputTokens: sql<string>`coalesce(sum(${usageRecords.cachedInputTokens}), 0)` })
          .from(usageRecords)
          .where(usageQuery.usageConditions(usageRecords, filter)),
        db
          .select({ ...folded, cachedInputTokens: sql<string>`coalesce(sum(${usageDaily.cachedInputTokens}), 0)` })
          .from(usageDaily)
          .where(usageQuery.dailyConditions(usageDaily, filter)),
      ])
      return usageQuery.summaryOf(row, old)
    },
    async listRequests(filter, limit, before) {
      return db
        .select()
        .from(usageRecords)
        .where(usageQuery.usageConditions(usageRecords, filter, before))
        .orderBy(desc(usageRecords.createdAt), desc(usageRecords.id))
        .limit(limit)
    },
    async dailyTotals(filter) {
      const day = usageQuery.dayOf(usageRecords)
      const [rows, old] = await Promise.all([
        db
          .select({ day, ...totals, ...usageQuery.spanColumns(usageRecords) })
          .from(usageRecords)
          .where(usageQuery.usageConditions(usageRecords, filter))
          .groupBy(day)
          .orderBy(day),
        db
          .select({ day: usageDaily.day, ...folded })
          .from(usageDaily)
          .where(usageQuery.dailyConditions(usageDaily, filter))
          .groupBy(usageDaily.day),
      ])
      return usageQuery.mergeDays(
        old.map((row) => ({ day: Number(row.day), ...usageQuery.readTotals(row) })),
        rows.map((row) => ({ day: Number(row.day), ...usageQuery.readTotals(row), ...usageQuery.readSpan(row) })),
      )
    },
    async totalsBy(dimension, filter) {
      const column = usageRecords[dimension]
      const foldedColumn = usageDaily[dimension]
      const [rows, old] = await Promise.all([
        db
          .select({ group: column, ...totals })
          .from(usageRecords)
          .where(usageQuery.usageConditions(usageRecords, filter))
          .groupBy(column),
        db
          .select({ group: foldedColumn, ...folded })
          .from(usageDaily)
          .where(usageQuery.dailyConditions(usageDaily, filter))
          .groupBy(foldedColumn),
      ])
      return usageQuery.mergeGroups(
        old.map((row) => ({ group: String(row.group), ...usageQuery.readTotals(row) })),
        rows.map((row) => ({ group: String(row.group), ...usageQuery.readTotals(row) })),
      )
    },
    async fold(cutoff, limit) {
      return client.begin(async (tx) => {
        const [lock]: { locked: boolean }[] = await tx`SELECT pg_try_advisory_xact_lock(${foldLock}) AS locked`
        if (!lock?.locked) return { folded: 0, busy: true }
        // The limit-th oldest row bounds the batch; with fewer rows left, the batch is every row before the cutoff.
        const [last]: { created_at: string; id: string }[] = await tx.unsafe(usageQuery.foldBoundarySql, [cutoff, limit - 1])
        const bound = last ? [Number(last.created_at), Number(last.id)] : [cutoff - 1, Number.MAX_SAFE_INTEGER]
        await tx.unsafe(usageQuery.foldInsertSql, bound)
        const deleted = await tx.unsafe(usageQuery.foldDeleteSql, bound)
        return { folded: deleted.count as number }
      })
    },
  }
}
