import type { Database, Statement } from 'bun:sqlite'
import type { LedgerWrite } from '../../domain/records.ts'
import type { UsageInbox } from './usage-inbox.ts'

/** Every column of a usage row, in the order of the log's and the inbox's tables. */
export const usageColumns = `id, request_id, account_id, key_id, model, provider, upstream_model, protocol, input_tokens, cached_input_tokens,
  cache_write_tokens, output_tokens, reasoning_tokens, cost, status, error_type, latency_ms, stream, estimated, created_at, operation, units`
const usagePlaceholders = '?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?'
/** Rows per INSERT statement: 22 columns × 32 = 704 parameters, far below SQLite's limit. */
const rowsPerInsert = 32

/**
 * A batch of fewer bills than this writes its usage rows into the inbox (usage-inbox.ts); a larger one, as a busy
 * gateway's group commits are (~20 bills), straight into the indexed log, where its rows share the index pages
 * anyway: moving them later would cost more than the pages it saves (bench/compare.ts, 2026-11-27: 124.8 against
 * 118.4 µs a request at saturation with every batch through the inbox).
 */
const inboxBelow = 4

/**
 * The usage rows of a batch, written with multi-row INSERTs (one per 32 rows): a statement call costs more than
 * a row, so this roughly halves the CPU of writing usage (measured ~15 → ~8 µs per row, bench/, 2026-11-23). Each
 * row's id follows the largest over the log and the inbox. Returns how many rows it put into the inbox.
 */
export function prepareUsageInserts(client: Database, inbox: UsageInbox): (batch: LedgerWrite[]) => number {
  const statements = new Map<string, Statement>()
  const statementFor = (table: 'usage_inbox' | 'usage_log', rows: number) => {
    let statement = statements.get(table + rows)
    if (!statement) {
      const values = Array.from({ length: rows }, () => `(${usagePlaceholders})`).join(', ')
      statement = client.prepare(`INSERT INTO ${table} (${usageColumns}) VALUES ${values}`)
      statements.set(table + rows, statement)
    }
    return statement
  }
  return (batch) => {
    const table = batch.length < inboxBelow ? 'usage_inbox' : 'usage_log'
    let params: (string | number | null)[] = []
    let rows = 0
    let id = 0
    let written = 0
    for (const write of batch) {
      if (write.kind === 'release') continue
      if (written++ === 0) id = inbox.lastId()
      const row = write.usage
      params.push(
        ++id,
        row.requestId,
        row.accountId,
        row.keyId,
        row.model,
        row.provider,
        row.upstreamModel,
        row.protocol,
        row.inputTokens,
        row.cachedInputTokens,
        row.cacheWriteTokens,
        row.outputTokens,
        row.reasoningTokens,
        row.cost,
        row.status,
        row.errorType,
        row.latencyMs,
        row.stream ? 1 : 0,
        row.estimated ? 1 : 0,
        row.createdAt,
        row.operation,
        row.units,
      )
      if (++rows === rowsPerInsert) {
        statementFor(table, rows).run(...params)
        params = []
        rows = 0
      }
    }
    if (rows > 0) statementFor(table, rows).run(...params)
    return table === 'usage_inbox' ? written : 0
  }
}
