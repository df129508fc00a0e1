import { Database } from 'bun:sqlite'
import { SQL } from 'bun'
import { getTableConfig, type PgTable } from 'drizzle-orm/pg-core'
import { maskDatabaseUrl, parseDatabaseUrl } from '../core/database-url.ts'
import { openPostgresStore } from './postgres/store.ts'
import * as pg from './postgres/schema.ts'
import { createSqliteLedger } from './sqlite/ledger.ts'
import { acquireServeLock } from './sqlite/serve-lock.ts'
import { openSqliteStore } from './sqlite/store.ts'

/** The copy cannot run as asked (or did not match): the CLI prints the message on one line and exits non-zero. */
export class CopyError extends Error {
  constructor(
    message: string,
    readonly report?: CopyReport,
  ) {
    super(message)
    this.name = 'CopyError'
  }
}

export interface CopyOptions {
  from: string
  to: string
  /** Replace whatever the target holds (refused otherwise). */
  force?: boolean
  /** Copy console sign-ins too; without it everyone signs in again on the new database. */
  sessions?: boolean
  /** Rows per INSERT for ordinary tables (tests make it small to cross batch edges). */
  batchRows?: number
}

export interface CopyReport {
  tables: { table: string; source: number; target: number; skipped?: boolean }[]
  /** Money sums in nano-dollars, as exact decimal strings (a sum may exceed 2^53). */
  sums: { sum: string; source: string; target: string }[]
  /** Holds a crashed serve left in the source, released before copying. */
  releasedHolds: number
  matches: boolean
}

/**
 * Every table, parents before children (foreign keys), with how many rows go in one INSERT: PostgreSQL takes at
 * most 65535 parameters a statement (usage: 20 columns), and file parts and batch items carry whole request bodies.
 * `instances` is not copied: it is the target's own live gateways.
 */
const copied: { table: PgTable; rows?: number }[] = [
  { table: pg.accounts },
  { table: pg.users },
  { table: pg.sessions },
  { table: pg.identities },
  { table: pg.signInFlows },
  // Before keys, which name their project.
  { table: pg.projects },
  { table: pg.apiKeys },
  { table: pg.budgets },
  { table: pg.budgetPeriods },
  { table: pg.ledgerEntries },
  { table: pg.holds },
  { table: pg.usageRecords },
  { table: pg.usageDaily },
  { table: pg.adminTokens },
  { table: pg.taskFiles },
  { table: pg.taskFileParts, rows: 16 },
  { table: pg.tasks },
  { table: pg.taskItems, rows: 100 },
  // Release batches applied lately (db/*/ledger.ts): pruned after a day, copied so nothing is left behind.
  { table: pg.ledgerBatches },
  // Who changed what: kept with the same ids and times, so the history reads the same on the new database.
  { table: pg.auditLog },
  // Webhooks (with their signing secrets, which the new database must have to sign) and what they were sent.
  { table: pg.webhooks },
  { table: pg.webhookDeliveries },
]

/** The tables `db copy` writes, by name, in order. */
export const copiedTables = copied.map(({ table }) => getTableConfig(table).name)

/** What must add up to the same on both sides. */
const sums: [table: string, column: string][] = [
  ['accounts', 'balance'],
  ['accounts', 'reserved'],
  ['api_keys', 'spent'],
  ['api_keys', 'reserved'],
  ['budget_periods', 'spent'],
  ['ledger_entries', 'amount'],
  ['usage_records', 'cost'],
  ['usage_daily', 'cost'],
  ['tasks', 'spent'],
  ['task_items', 'cost'],
]

/** An instance whose heartbeat is this recent is serving from the target (db/postgres/instances.ts). */
const liveHeartbeatMs = 30_000

/**
 * `tollgate db copy`: one SQLite database into PostgreSQL, row for row with the same ids (account ids are referenced
 * by keys, usage and tasks), in one target transaction, streamed in batches so a million usage rows never sit in
 * memory. The source's serve lock is held throughout, so no server writes to it meanwhile; holds a crashed server
 * left are released first (its money was never spent). Counts and money sums of both sides are compared before
 * committing: a mismatch rolls everything back.
 */
export async function copyDatabase(options: CopyOptions): Promise<CopyReport> {
  const from = parseDatabaseUrl(options.from)
  const to = parseDatabaseUrl(options.to)
  if (typeof from === 'string') throw new CopyError(`--from: ${from}`)
  if (typeof to === 'string') throw new CopyError(`--to: ${to}`)
  if (from.dialect !== 'sqlite' || to.dialect !== 'postgres') {
    throw new CopyError('db copy moves a SQLite database into PostgreSQL: --from sqlite:PATH --to postgres://USER@HOST:PORT/DATABASE')
  }
  if (!(await Bun.file(from.path).exists())) throw new CopyError(`no SQLite database at ${from.path}`)

  const releaseLock = acquireServeLock(from.path) // throws DatabaseInUseError while a serve runs on it
  try {
    // Both sides at the current schema: the source as its next serve would leave it, the target created if new.
    const sourceStore = openSqliteStore(from.path)
    await sourceStore.migrate().finally(() => sourceStore.close())
    const targetStore = openPostgresStore(to.url)
    await targetStore.migrate().finally(() => targetStore.close())

    const source = new Database(from.path, { readwrite: true, create: false })
    const target = new SQL(to.url, { max: 1 })
    try {
      source.exec('PRAGMA busy_timeout = 5000')
      await refuseBusyTarget(target, to.url, options.force === true)
      // We hold the serve lock, so every hold is a dead server's, as at serve's own start.
      const releasedHolds = await createSqliteLedger(source).startServing(0)
      // One read transaction: CLI commands writing meanwhile (WAL) do not tear the snapshot.
      source.exec('BEGIN')
      try {
        return await target.begin(async (tx) => {
          if (options.force) await tx.unsafe(`TRUNCATE ${[...copiedTables, 'instances'].join(', ')} RESTART IDENTITY CASCADE`)
          const tables: CopyReport['tables'] = []
          for (const { table, rows } of copied) {
            const name = getTableConfig(table).name
            const skipped = name === 'sessions' && !options.sessions
            const sourceCount = countRows(source, name)
            if (!skipped) await copyTable(source, tx, table, rows ?? options.batchRows ?? 1000)
            const [{ count }] = await tx.unsafe(`SELECT count(*)::int AS count FROM ${name}`)
            tables.push({ table: name, source: sourceCount, target: count, ...(skipped && { skipped }) })
          }
          await resetSequences(tx)
          const report: CopyReport = { tables, sums: [], releasedHolds, matches: true }
          for (const [table, column] of sums) {
            const left = (
              source.query(`SELECT CAST(coalesce(sum(${column}), 0) AS TEXT) AS total FROM ${table}`).get() as { total: string }
            ).total
            const [{ total: right }] = await tx.unsafe(`SELECT coalesce(sum(${column}), 0)::text AS total FROM ${table}`)
            report.sums.push({ sum: `${table}.${column}`, source: left, target: right })
          }
          report.matches =
            report.tables.every((row) => row.skipped || row.source === row.target) && report.sums.every((row) => row.source === row.target)
          if (!report.matches) throw new CopyError('the copy does not match its source; nothing was written to the target', report)
          return report
        })
      } finally {
        source.exec('ROLLBACK')
      }
    } finally {
      source.close()
      await target.close()
    }
  } finally {
    releaseLock()
  }
}

/** Refuse a target with data in it (unless `force`), and always one that gateways are serving from. */
async function refuseBusyTarget(target: SQL, url: string, force: boolean): Promise<void> {
  const [{ live }] = await target.unsafe(
    `SELECT count(*)::int AS live FROM instances WHERE heartbeat_at > floor(extract(epoch from clock_timestamp()) * 1000)::bigint - $1`,
    [liveHeartbeatMs],
  )
  if (live > 0) {
    throw new CopyError(
      `${live} gateway instance${live === 1 ? ' is' : 's are'} serving from ${maskDatabaseUrl(url)} (a heartbeat in the last ` +
        `${liveHeartbeatMs / 1000} s): stop ${live === 1 ? 'it' : 'them'} before copying into that database`,
    )
  }
  if (force) return
  const filled: string[] = []
  for (const table of copiedTables) {
    const [{ count }] = await target.unsafe(`SELECT count(*)::int AS count FROM ${table}`)
    if (count > 0) filled.push(`${table}: ${count}`)
  }
  if (filled.length) {
    throw new CopyError(
      `${maskDatabaseUrl(url)} is not empty (${filled.join(', ')} rows); ` +
        'copy into a new database, or add --force to delete everything in it first',
    )
  }
}

function countRows(source: Database, table: string): number {
  return (source.query(`SELECT count(*) AS count FROM ${table}`).get() as { count: number }).count
}

/** One table, in rowid order, `batch` rows per INSERT. SQLite's 0/1 become PostgreSQL booleans. */
async function copyTable(source: Database, tx: SQL, table: PgTable, batch: number): Promise<void> {
  const config = getTableConfig(table)
  const present = new Set((source.query(`PRAGMA table_info(${config.name})`).all() as { name: string }[]).map((column) => column.name))
  const columns = config.columns.filter((column) => present.has(column.name))
  const targetNames = new Set(config.columns.map((column) => column.name))
  const lost = [...present].filter((name) => !targetNames.has(name))
  // A column only the source has would be dropped silently: refuse instead (the schemas are twins by design).
  if (lost.length) throw new CopyError(`${config.name}.${lost.join(', ')} has no column in the PostgreSQL schema; nothing was written`)
  const booleans = columns.map((column) => column.columnType === 'PgBoolean')
  const names = columns.map((column) => column.name).join(', ')
  // usage_records is a view of the indexed log and the inbox (drizzle/sqlite/0019_usage_inbox.sql), which has no rowid;
  // the inbox was emptied into the log by startServing, and a row left there would fail the count check.
  const from = config.name === 'usage_records' ? 'usage_log' : config.name
  const read = source.query(`SELECT rowid, ${names} FROM ${from} WHERE rowid > ? ORDER BY rowid LIMIT ?`)
  const width = columns.length
  let after = -Infinity
  for (;;) {
    const rows = read.values(after, batch) as (string | number | bigint | null)[][]
    if (rows.length === 0) return
    const params: unknown[] = []
    const tuples: string[] = []
    for (const row of rows) {
      const marks: string[] = []
      for (let index = 0; index < width; index++) {
        const value = row[index + 1]
        params.push(booleans[index] && value !== null ? value !== 0 : value)
        marks.push(`$${params.length}`)
      }
      tuples.push(`(${marks.join(', ')})`)
    }
    await tx.unsafe(`INSERT INTO ${config.name} (${names}) VALUES ${tuples.join(', ')}`, params)
    after = rows.at(-1)![0] as number
    if (rows.length < batch) return
  }
}

/** The copied ids came with the rows: each serial sequence resumes after the largest, so new rows never collide. */
async function resetSequences(tx: SQL): Promise<void> {
  for (const { table } of copied) {
    const config = getTableConfig(table)
    if (!config.columns.some((column) => column.name === 'id' && column.columnType.includes('Serial'))) continue
    await tx.unsafe(`SELECT setval(pg_get_serial_sequence($1, 'id'), coalesce((SELECT max(id) FROM ${config.name}), 0) + 1, false)`, [
      config.name,
    ])
  }
}
