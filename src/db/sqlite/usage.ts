import type { Database, Statement } from 'bun:sqlite'
import { desc, sql } from 'drizzle-orm'
import type { UsageLogEntry } from '../../domain/records.ts'
import type { UsageRepository } from '../../domain/repositories.ts'
import * as usageQuery from '../usage-query.ts'
import { usageDaily, usageRecords } from './schema.ts'
import type { SqliteDatabase } from './store.ts'
import { UsageInbox } from './usage-inbox.ts'

/** The largest id SQLite can hand out: a boundary past every row of a millisecond. */
const lastId = Number.MAX_SAFE_INTEGER

export function createSqliteUsage(db: SqliteDatabase, client: Database): UsageRepository {
  const totals = usageQuery.totalsColumns(usageRecords)
  const folded = usageQuery.dailyTotalsColumns(usageDaily)
  // Prepared on first use: the tables may not exist until migrations have run.
  let fold: ((cutoff: number, limit: number) => number) | undefined
  return {
    async summarize(filter) {
      const row = db
        .select({ ...totals, cachedInputTokens: sql<number>`coalesce(sum(${usageRecords.cachedInputTokens}), 0)` })
        .from(usageRecords)
        .where(usageQuery.usageConditions(usageRecords, filter))
        .get()
      const old = db
        .select({ ...folded, cachedInputTokens: sql<number>`coalesce(sum(${usageDaily.cachedInputTokens}), 0)` })
        .from(usageDaily)
        .where(usageQuery.dailyConditions(usageDaily, filter))
        .get()
      return usageQuery.summaryOf(row, old)
    },
    /*
     * Measured with bench/usage-log.ts: 1,000,000 rows over 90 days, 20 accounts, 100 keys, 5 models, 2 cores.
     * A page of 50 takes about 0.5–1.5 ms, first page or 200 pages deep, for no filter, one account, one key or
     * one model (each walks an index already in (…, created_at, id) order). Filters the indexes cannot lead
     * with cost in proportion to how rare the match is: one account's 5xx (0.5% of rows) about 13 ms a page,
     * a 0.5%-status across all accounts about 4–50 ms a page, a model a key never used about 25 ms (it reads
     * that key's rows once).
     */
    async listRequests(filter, limit, before) {
      return db
        .select()
        .from(usageRecords)
        .where(usageQuery.usageConditions(usageRecords, filter, before))
        .orderBy(desc(usageRecords.createdAt), desc(usageRecords.id))
        .limit(limit)
        .all() as UsageLogEntry[]
    },
    async dailyTotals(filter) {
      const day = usageQuery.dayOf(usageRecords)
      const rows = db
        .select({ day, ...totals, ...usageQuery.spanColumns(usageRecords) })
        .from(usageRecords)
        .where(usageQuery.usageConditions(usageRecords, filter))
        .groupBy(day)
        .orderBy(day)
        .all()
      const old = db
        .select({ day: usageDaily.day, ...folded })
        .from(usageDaily)
        .where(usageQuery.dailyConditions(usageDaily, filter))
        .groupBy(usageDaily.day)
        .all()
      return usageQuery.mergeDays(
        old.map((row) => ({ day: Number(row.day), ...usageQuery.readTotals(row) })),
        rows.map((row) => ({ day: Number(row.day), ...usageQuery.readTotals(row), ...usageQuery.readSpan(row) })),
      )
    },
    async totalsBy(dimension, filter) {
      const column = usageRecords[dimension]
      const rows = db
        .select({ group: column, ...totals })
        .from(usageRecords)
        .where(usageQuery.usageConditions(usageRecords, filter))
        .groupBy(column)
        .orderBy(desc(totals.spent))
        .all()
      const foldedColumn = usageDaily[dimension]
      const old = db
        .select({ group: foldedColumn, ...folded })
        .from(usageDaily)
        .where(usageQuery.dailyConditions(usageDaily, filter))
        .groupBy(foldedColumn)
        .all()
      return usageQuery.mergeGroups(
        old.map((row) => ({ group: String(row.group), ...usageQuery.readTotals(row) })),
        rows.map((row) => ({ group: String(row.group), ...usageQuery.readTotals(row) })),
      )
    },
    async fold(cutoff, limit) {
      fold ??= prepareFold(client)
      return { folded: fold(cutoff, limit) }
    },
  }
}

/**
 * One batch of the fold as one IMMEDIATE transaction on the serving connection (see usage-query.ts for the SQL), on
 * the indexed log, after moving the oldest of the inbox into it (drizzle/sqlite/0019_usage_inbox.sql).
 */
function prepareFold(client: Database): (cutoff: number, limit: number) => number {
  const inbox = new UsageInbox(client)
  // SQLite's numbered parameters are ?1, ?2; the rows are the log's (the view has no index to fold along).
  const numbered = (text: string) => text.replaceAll('$', '?').replaceAll('usage_records', 'usage_log')
  const boundary = client.prepare<{ created_at: number; id: number }, [number, number]>(numbered(usageQuery.foldBoundarySql))
  const insert: Statement = client.prepare(numbered(usageQuery.foldInsertSql))
  const remove: Statement = client.prepare(numbered(usageQuery.foldDeleteSql))
  const batch = client.transaction((cutoff: number, limit: number) => {
    // The limit-th oldest row bounds the batch; with fewer rows left, the batch is every row before the cutoff.
    const last = boundary.get(cutoff, limit - 1)
    const [until, id] = last ? [last.created_at, last.id] : [cutoff - 1, lastId]
    insert.run(until, id)
    return remove.run(until, id).changes
  })
  // A chunk of the inbox a batch, as the fold's own batches go: the inbox holds a second's bills or fewer unless
  // another connection filled it, and what is left waits for the next batch (every row is counted wherever it is).
  return (cutoff, limit) => {
    inbox.moveOldest()
    return batch.immediate(cutoff, limit)
  }
}
