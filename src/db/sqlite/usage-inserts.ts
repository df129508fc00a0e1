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
 * The usage rows of a batch, written into the unindexed inbox (usage-inbox.ts) with multi-row INSERTs (one per 32
 * rows): a statement call costs more than a row, so this roughly halves the CPU of writing usage (measured ~15 → ~8
 * µs per row, bench/, 2026-11-23). Each row's id follows the largest over the log and the inbox. Returns how many
 * rows it wrote.
 *
 * Every batch goes to the inbox, a busy gateway's group commits (~20 bills) too. Straight into the log, each row
 * lands in four indexes at the places of its account, key, model and time: with many tenants a group of 19 dirties a
 * page of each index per tenant in it, every commit. Moved in batches (usage-inbox.ts), rows of one tenant share their
 * pages (2026-11-28, moves of 256, groups of 19 committed on the real schema: spread over 50 keys, 20 accounts and 5 models 33–36 µs a
 * row straight into the log, 11 µs through the inbox with its moves; one key and account 10 against 5; 500 keys 31
 * against 26. bench/compare.ts saturated, one key, in turns with the commit before: whole answers 24,804 against
 * 23,945 req/s, streamed 17,368 against 17,114).
 */
export function prepareUsageInserts(client: Database, inbox: UsageInbox): (batch: LedgerWrite[]) => number {
  const statements = new Map<number, Statement>()
  const statementFor = (rows: number) => {
    let statement = statements.get(rows)
    if (!statement) {
      const values = Array.from({ length: rows }, () => `(${usagePlaceholders})`).join(', ')
      statement = client.prepare(`INSERT INTO usage_inbox (${usageColumns}) VALUES ${values}`)
      statements.set(rows, statement)
    }
    return statement
  }
  return (batch) => {
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
        statementFor(rows).run(...params)
        params = []
        rows = 0
      }
    }
    if (rows > 0) statementFor(rows).run(...params)
    return written
  }
}
