import type { SQL } from 'bun'
import { desc, sql } from 'drizzle-orm'
import type { UsageRepository } from '../../domain/repositories.ts'
import {
  addTotals,
  dailyConditions,
  dailyTotalsColumns,
  dayOf,
  foldBoundarySql,
  foldDeleteSql,
  foldInsertSql,
  mergeDays,
  mergeGroups,
  readSpan,
  readTotals,
  spanColumns,
  totalsColumns,
  usageConditions,
} from '../usage-query.ts'
import { usageDaily, usageRecords } from './schema.ts'
import type { PostgresDatabase } from './store.ts'

/**
 * The transaction-scoped advisory lock one fold batch takes ('tollgate fold'): instances sharing the database fold
 * one batch at a time, so no two sum the same rows; a batch that cannot take it at once does nothing (`busy`).
 */
const foldLock = 0x746f6c6c666f6c64n

export function createPostgresUsage(db: PostgresDatabase, client: SQL): UsageRepository {
  const totals = totalsColumns(usageRecords)
  const folded = dailyTotalsColumns(usageDaily)
  return {
    async summarize(filter) {
      const [[row], [old]] = await Promise.all([
        db
          .select({ ...totals, cachedInputTokens: sql<string>`coalesce(sum(${usageRecords.cachedInputTokens}), 0)` })
          .from(usageRecords)
          .where(usageConditions(usageRecords, filter)),
        db
          .select({ ...folded, cachedInputTokens: sql<string>`coalesce(sum(${usageDaily.cachedInputTokens}), 0)` })
          .from(usageDaily)
          .where(dailyConditions(usageDaily, filter)),
      ])
      const live = readTotals(row)
      const past = readTotals(old)
      return { ...addTotals(live, past), cachedInputTokens: Number(row?.cachedInputTokens ?? 0) + Number(old?.cachedInputTokens ?? 0) }
    },
    async listRequests(filter, limit, before) {
      return db
        .select()
        .from(usageRecords)
        .where(usageConditions(usageRecords, filter, before))
        .orderBy(desc(usageRecords.createdAt), desc(usageRecords.id))
        .limit(limit)
    },
    async dailyTotals(filter) {
      const day = dayOf(usageRecords)
      const [rows, old] = await Promise.all([
        db
          .select({ day, ...totals, ...spanColumns(usageRecords) })
          .from(usageRecords)
          .where(usageConditions(usageRecords, filter))
          .groupBy(day)
          .orderBy(day),
        db
          .select({ day: usageDaily.day, ...folded })
          .from(usageDaily)
          .where(dailyConditions(usageDaily, filter))
          .groupBy(usageDaily.day),
      ])
      return mergeDays(
        old.map((row) => ({ day: Number(row.day), ...readTotals(row) })),
        rows.map((row) => ({ day: Number(row.day), ...readTotals(row), ...readSpan(row) })),
      )
    },
    async totalsBy(dimension, filter) {
      const column = usageRecords[dimension]
      const foldedColumn = usageDaily[dimension]
      const [rows, old] = await Promise.all([
        db
          .select({ group: column, ...totals })
          .from(usageRecords)
          .where(usageConditions(usageRecords, filter))
          .groupBy(column),
        db
          .select({ group: foldedColumn, ...folded })
          .from(usageDaily)
          .where(dailyConditions(usageDaily, filter))
          .groupBy(foldedColumn),
      ])
      return mergeGroups(
        old.map((row) => ({ group: String(row.group), ...readTotals(row) })),
        rows.map((row) => ({ group: String(row.group), ...readTotals(row) })),
      )
    },
    async fold(cutoff, limit) {
      return client.begin(async (tx) => {
        const [lock]: { locked: boolean }[] = await tx`SELECT pg_try_advisory_xact_lock(${foldLock}) AS locked`
        if (!lock?.locked) return { folded: 0, busy: true }
        // The limit-th oldest row bounds the batch; with fewer rows left, the batch is every row before the cutoff.
        const [last]: { created_at: string; id: string }[] = await tx.unsafe(foldBoundarySql, [cutoff, limit - 1])
        const bound = last ? [Number(last.created_at), Number(last.id)] : [cutoff - 1, Number.MAX_SAFE_INTEGER]
        await tx.unsafe(foldInsertSql, bound)
        const deleted = await tx.unsafe(foldDeleteSql, bound)
        return { folded: deleted.count as number }
      })
    },
  }
}
