import { and, eq, gte, lt, lte, or, sql, type Column, type SQL } from 'drizzle-orm'
import type { UsageCursor, UsageFilter, UsageTotals } from '../domain/records.ts'
import { dayMs } from '../core/time.ts'

/**
 * The usage queries' SQL, written once for both dialects: it uses only what SQLite and PostgreSQL read the same
 * way (comparisons, count/sum, integer division), and each store passes its own usage_records columns.
 */
export interface UsageColumns {
  id: Column
  accountId: Column
  keyId: Column
  model: Column
  status: Column
  inputTokens: Column
  cachedInputTokens: Column
  outputTokens: Column
  cost: Column
  createdAt: Column
}

export function usageConditions(table: UsageColumns, filter: UsageFilter, before?: UsageCursor): SQL | undefined {
  const conditions: (SQL | undefined)[] = []
  if (filter.accountId !== undefined) conditions.push(eq(table.accountId, filter.accountId))
  if (filter.keyId !== undefined) conditions.push(eq(table.keyId, filter.keyId))
  if (filter.model !== undefined) conditions.push(eq(table.model, filter.model))
  if (filter.statusMin !== undefined) conditions.push(gte(table.status, filter.statusMin))
  if (filter.statusMax !== undefined) conditions.push(lte(table.status, filter.statusMax))
  if (filter.since !== undefined) conditions.push(gte(table.createdAt, filter.since))
  if (filter.until !== undefined) conditions.push(lt(table.createdAt, filter.until))
  if (before) {
    // Spelled out rather than as a row value `(created_at, id) < (?, ?)`: both walk the (…, created_at, id)
    // indexes, and this form measured no slower (bench/usage-log.ts).
    conditions.push(or(lt(table.createdAt, before.createdAt), and(eq(table.createdAt, before.createdAt), lt(table.id, before.id))))
  }
  return conditions.length ? and(...conditions) : undefined
}

/** count and sums; PostgreSQL returns bigint sums as text, hence readTotals. */
export function totalsColumns(table: UsageColumns) {
  return {
    requests: sql<number | string>`count(*)`,
    inputTokens: sql<number | string>`coalesce(sum(${table.inputTokens}), 0)`,
    outputTokens: sql<number | string>`coalesce(sum(${table.outputTokens}), 0)`,
    spent: sql<number | string>`coalesce(sum(${table.cost}), 0)`,
  }
}

/** Exact below 2^53, which every count and every nano-dollar sum stays under. */
export function readTotals(row: Record<keyof UsageTotals, number | string> | undefined): UsageTotals {
  return {
    requests: Number(row?.requests ?? 0), inputTokens: Number(row?.inputTokens ?? 0),
    outputTokens: Number(row?.outputTokens ?? 0), spent: Number(row?.spent ?? 0),
  }
}

/**
 * Midnight (UTC, epoch ms) of the row's day: integer division means the same in both dialects. The constant is
 * inlined, not a parameter, so PostgreSQL sees the GROUP BY expression as the very one selected.
 */
export function dayOf(table: UsageColumns): SQL<number | string> {
  const day = sql.raw(String(dayMs))
  return sql<number | string>`(${table.createdAt} / ${day}) * ${day}`
}
