import { and, eq, gt, gte, inArray, lt, lte, or, sql, type Column, type SQL } from 'drizzle-orm'
import type { UsageCursor, UsageDay, UsageFilter, UsageGroup, UsageTotals } from '../domain/records.ts'
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

/** One of these keys (a project's): no key at all matches nothing. */
const keyIn = (column: Column, keyIds: readonly string[]): SQL => (keyIds.length ? inArray(column, [...keyIds]) : sql`1 = 0`)

export function usageConditions(table: UsageColumns, filter: UsageFilter, before?: UsageCursor): SQL | undefined {
  const conditions: (SQL | undefined)[] = []
  if (filter.accountId !== undefined) conditions.push(eq(table.accountId, filter.accountId))
  if (filter.keyId !== undefined) conditions.push(eq(table.keyId, filter.keyId))
  if (filter.keyIds !== undefined) conditions.push(keyIn(table.keyId, filter.keyIds))
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

/**
 * How a request ended, by its status: answered (below 400); refused (4xx but 499: the gateway or the upstream turned
 * it down before answering — a key's limit, a bad field, a model not permitted, an empty balance); failed (5xx, and
 * 499 when the client left mid-answer: the answer did not complete). The same split for live rows and folded days.
 */
const outcomeConditions = {
  succeeded: (status: Column) => sql`${status} < 400`,
  refused: (status: Column) => sql`${status} >= 400 AND ${status} < 500 AND ${status} <> 499`,
  failed: (status: Column) => sql`(${status} = 499 OR ${status} >= 500)`,
}

function outcomeCounts(status: Column, per: SQL | Column) {
  const count = (condition: SQL) => sql<number | string>`coalesce(sum(CASE WHEN ${condition} THEN ${per} ELSE 0 END), 0)`
  return {
    succeeded: count(outcomeConditions.succeeded(status)),
    refused: count(outcomeConditions.refused(status)),
    failed: count(outcomeConditions.failed(status)),
  }
}

/** count and sums; PostgreSQL returns bigint sums as text, hence readTotals. */
export function totalsColumns(table: UsageColumns) {
  return {
    requests: sql<number | string>`count(*)`,
    ...outcomeCounts(table.status, sql`1`),
    inputTokens: sql<number | string>`coalesce(sum(${table.inputTokens}), 0)`,
    outputTokens: sql<number | string>`coalesce(sum(${table.outputTokens}), 0)`,
    spent: sql<number | string>`coalesce(sum(${table.cost}), 0)`,
  }
}

/** Exact below 2^53, which every count and every nano-dollar sum stays under. */
export function readTotals(row: Record<keyof UsageTotals, number | string> | undefined): UsageTotals {
  return {
    requests: Number(row?.requests ?? 0),
    succeeded: Number(row?.succeeded ?? 0),
    refused: Number(row?.refused ?? 0),
    failed: Number(row?.failed ?? 0),
    inputTokens: Number(row?.inputTokens ?? 0),
    outputTokens: Number(row?.outputTokens ?? 0),
    spent: Number(row?.spent ?? 0),
  }
}

/** The first and last request of a group of live rows: when a day's spending happened, for the balance history. */
export function spanColumns(table: UsageColumns) {
  return { firstAt: sql<number | string>`min(${table.createdAt})`, lastAt: sql<number | string>`max(${table.createdAt})` }
}

export function readSpan(row: { firstAt: number | string | null; lastAt: number | string | null }): { firstAt?: number; lastAt?: number } {
  return row.firstAt === null || row.lastAt === null ? {} : { firstAt: Number(row.firstAt), lastAt: Number(row.lastAt) }
}

/**
 * Midnight (UTC, epoch ms) of the row's day: integer division means the same in both dialects. The constant is
 * inlined, not a parameter, so PostgreSQL sees the GROUP BY expression as the very one selected.
 */
export function dayOf(table: UsageColumns): SQL<number | string> {
  const day = sql.raw(String(dayMs))
  return sql<number | string>`(${table.createdAt} / ${day}) * ${day}`
}

/** The columns of usage_daily (folded days) that summaries read, in each dialect's schema. */
export interface DailyColumns {
  day: Column
  accountId: Column
  keyId: Column
  model: Column
  status: Column
  requests: Column
  inputTokens: Column
  cachedInputTokens: Column
  outputTokens: Column
  cost: Column
}

/**
 * The filter on folded days. A folded day counts when it overlaps [since, until): exact for the whole-day ranges the
 * console and `tollgate usage` ask for, and a day's granularity for any other range (its rows are one total now).
 */
export function dailyConditions(table: DailyColumns, filter: UsageFilter): SQL | undefined {
  const conditions: SQL[] = []
  if (filter.accountId !== undefined) conditions.push(eq(table.accountId, filter.accountId))
  if (filter.keyId !== undefined) conditions.push(eq(table.keyId, filter.keyId))
  if (filter.keyIds !== undefined) conditions.push(keyIn(table.keyId, filter.keyIds))
  if (filter.model !== undefined) conditions.push(eq(table.model, filter.model))
  if (filter.statusMin !== undefined) conditions.push(gte(table.status, filter.statusMin))
  if (filter.statusMax !== undefined) conditions.push(lte(table.status, filter.statusMax))
  if (filter.since !== undefined) conditions.push(gt(table.day, filter.since - dayMs))
  if (filter.until !== undefined) conditions.push(lt(table.day, filter.until))
  return conditions.length ? and(...conditions) : undefined
}

/** The folded twin of totalsColumns: sums of the daily rows' counts. */
export function dailyTotalsColumns(table: DailyColumns) {
  return {
    requests: sql<number | string>`coalesce(sum(${table.requests}), 0)`,
    ...outcomeCounts(table.status, table.requests),
    inputTokens: sql<number | string>`coalesce(sum(${table.inputTokens}), 0)`,
    outputTokens: sql<number | string>`coalesce(sum(${table.outputTokens}), 0)`,
    spent: sql<number | string>`coalesce(sum(${table.cost}), 0)`,
  }
}

type SummaryRow = (Record<keyof UsageTotals, number | string> & { cachedInputTokens: number | string }) | undefined

/** A summary: the live rows' totals and cached input tokens plus the folded days' (either row may be missing). */
export function summaryOf(live: SummaryRow, old: SummaryRow): UsageTotals & { cachedInputTokens: number } {
  return {
    ...addTotals(readTotals(live), readTotals(old)),
    cachedInputTokens: Number(live?.cachedInputTokens ?? 0) + Number(old?.cachedInputTokens ?? 0),
  }
}

function addTotals<T extends UsageTotals>(into: T, more: UsageTotals): T {
  into.requests += more.requests
  into.succeeded += more.succeeded
  into.refused += more.refused
  into.failed += more.failed
  into.inputTokens += more.inputTokens
  into.outputTokens += more.outputTokens
  into.spent += more.spent
  return into
}

/** Folded days and live rows as one series, oldest first (a day being folded has some of each). */
export function mergeDays(folded: UsageDay[], live: UsageDay[]): UsageDay[] {
  const byDay = new Map<number, UsageDay>()
  for (const day of [...folded, ...live]) {
    const known = byDay.get(day.day)
    if (!known) {
      byDay.set(day.day, { ...day })
      continue
    }
    addTotals(known, day)
    // A day being folded has live rows with times and folded ones without: the span is the live rows'.
    if (day.firstAt !== undefined) known.firstAt = Math.min(known.firstAt ?? day.firstAt, day.firstAt)
    if (day.lastAt !== undefined) known.lastAt = Math.max(known.lastAt ?? day.lastAt, day.lastAt)
  }
  return [...byDay.values()].sort((a, b) => a.day - b.day)
}

/** Folded and live totals per group as one list, largest spend first. */
export function mergeGroups(folded: UsageGroup[], live: UsageGroup[]): UsageGroup[] {
  const byGroup = new Map<string, UsageGroup>()
  for (const group of [...folded, ...live]) {
    const known = byGroup.get(group.group)
    if (known) addTotals(known, group)
    else byGroup.set(group.group, { ...group })
  }
  return [...byGroup.values()].sort((a, b) => b.spent - a.spent)
}

/**
 * Folding a batch of usage rows (db/<dialect>/usage.ts `fold`): `created_at <= ? AND (created_at < ? OR id <= ?)`
 * selects every row up to a (created_at, id) boundary through the usage_time index. The rows are summed into
 * usage_daily (insert, or add to the day's row) and then deleted, in the caller's transaction: at every moment a
 * row is counted exactly once, live or folded.
 */
export const foldBoundarySql = 'SELECT created_at, id FROM usage_records WHERE created_at < $1 ORDER BY created_at, id LIMIT 1 OFFSET $2'
const foldedRows = 'FROM usage_records WHERE created_at <= $1 AND (created_at < $1 OR id <= $2)'
export const foldInsertSql = `INSERT INTO usage_daily (day, account_id, key_id, model, status, operation, requests, input_tokens,
  cached_input_tokens, cache_write_tokens, output_tokens, reasoning_tokens, units, cost)
SELECT (created_at / ${dayMs}) * ${dayMs}, account_id, key_id, model, status, operation, count(*), sum(input_tokens), sum(cached_input_tokens),
  sum(cache_write_tokens), sum(output_tokens), sum(reasoning_tokens), sum(units), sum(cost)
${foldedRows}
GROUP BY 1, 2, 3, 4, 5, 6
ON CONFLICT (day, account_id, key_id, model, status, operation) DO UPDATE SET requests = usage_daily.requests + excluded.requests,
  input_tokens = usage_daily.input_tokens + excluded.input_tokens,
  cached_input_tokens = usage_daily.cached_input_tokens + excluded.cached_input_tokens,
  cache_write_tokens = usage_daily.cache_write_tokens + excluded.cache_write_tokens,
  output_tokens = usage_daily.output_tokens + excluded.output_tokens,
  reasoning_tokens = usage_daily.reasoning_tokens + excluded.reasoning_tokens,
  units = usage_daily.units + excluded.units,
  cost = usage_daily.cost + excluded.cost`
export const foldDeleteSql = `DELETE ${foldedRows}`
