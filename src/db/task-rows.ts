import type { FileRecord, ItemOutcome, ItemRecord, TaskRecord } from '../domain/tasks/records.ts'
import type { FilePage } from '../domain/tasks/repository.ts'

/**
 * The task tables' rows as both dialects return them, and the statements both write alike (`?` placeholders:
 * postgres/tasks.ts numbers them). A whole number column arrives as a number from SQLite and, for PostgreSQL's
 * bigints, as a string: the mappings below read either.
 */
type Whole = number | string | bigint

export interface TaskRow {
  id: string
  kind: TaskRecord['kind']
  account_id: Whole
  key_id: string
  status: TaskRecord['status']
  endpoint: string
  model: string | null
  input_file_id: string | null
  output_file_id: string | null
  error_file_id: string | null
  metadata: string | null
  display_name: string | null
  total: Whole
  succeeded: Whole
  failed: Whole
  canceled: Whole
  expired: Whole
  spent: Whole
  created_at: Whole
  started_at: Whole | null
  finished_at: Whole | null
  cancel_requested_at: Whole | null
  expires_at: Whole
}

export interface ItemRow {
  id: string
  task_id: string
  seq: Whole
  custom_id: string
  body: string
  status: ItemRecord['status']
  result: string | null
  status_code: Whole | null
  cost: Whole
  started_at: Whole | null
  finished_at: Whole | null
  /** The answer a run stored before it was billed and finished (adoptOrphans). */
  staged: string | null
}

export interface FileRow {
  id: string
  account_id: Whole
  purpose: FileRecord['purpose']
  filename: string
  bytes: Whole
  task_id: string | null
  created_at: Whole
  expires_at: Whole | null
}

/** What a query of ids, counts or a usage row's bill returns. */
export interface IdRow {
  id: string
}
export interface OpenCountRow {
  open: Whole
}
export interface StoredFilesRow {
  files: Whole
  bytes: Whole
}
export interface TaskOwnerRow {
  id: string
  account_id: Whole
}
export interface BilledRow {
  status: Whole
  cost: Whole
}
export interface FilePartRow {
  seq: Whole
  data: string
}

const numberOrNull = (value: Whole | null | undefined): number | null => (value === null || value === undefined ? null : Number(value))

export function taskOf(row: TaskRow): TaskRecord {
  return {
    id: row.id,
    kind: row.kind,
    accountId: Number(row.account_id),
    keyId: row.key_id,
    status: row.status,
    endpoint: row.endpoint,
    model: row.model ?? null,
    inputFileId: row.input_file_id ?? null,
    outputFileId: row.output_file_id ?? null,
    errorFileId: row.error_file_id ?? null,
    metadata: row.metadata ? JSON.parse(row.metadata) : null,
    displayName: row.display_name ?? null,
    total: Number(row.total),
    succeeded: Number(row.succeeded),
    failed: Number(row.failed),
    canceled: Number(row.canceled),
    expired: Number(row.expired),
    spent: Number(row.spent),
    createdAt: Number(row.created_at),
    startedAt: numberOrNull(row.started_at),
    finishedAt: numberOrNull(row.finished_at),
    cancelRequestedAt: numberOrNull(row.cancel_requested_at),
    expiresAt: Number(row.expires_at),
  }
}

export function itemOf(row: ItemRow): ItemRecord {
  return {
    id: row.id,
    taskId: row.task_id,
    seq: Number(row.seq),
    customId: row.custom_id,
    body: row.body,
    status: row.status,
    result: row.result ?? null,
    statusCode: numberOrNull(row.status_code),
    cost: Number(row.cost),
    startedAt: numberOrNull(row.started_at),
    finishedAt: numberOrNull(row.finished_at),
  }
}

export function fileOf(row: FileRow): FileRecord {
  return {
    id: row.id,
    accountId: Number(row.account_id),
    purpose: row.purpose,
    filename: row.filename,
    bytes: Number(row.bytes),
    taskId: row.task_id ?? null,
    createdAt: Number(row.created_at),
    expiresAt: numberOrNull(row.expires_at),
  }
}

/** An orphaned item's usage row, when its run was billed: its status and cost. */
export function billedOf(row: BilledRow | undefined | null): { status: number; cost: number } | undefined {
  return row ? { status: Number(row.status), cost: Number(row.cost) } : undefined
}

export function taskValues(task: TaskRecord): (string | number | null)[] {
  return [
    task.id,
    task.kind,
    task.accountId,
    task.keyId,
    task.status,
    task.endpoint,
    task.model,
    task.inputFileId,
    task.metadata === null ? null : JSON.stringify(task.metadata),
    task.displayName,
    task.total,
    task.createdAt,
    task.expiresAt,
  ]
}

export function fileValues(file: FileRecord): (string | number | null)[] {
  return [file.id, file.accountId, file.purpose, file.filename, file.bytes, file.taskId, file.createdAt, file.expiresAt]
}

/** The task's counter an item's end adds to. */
export function counterOf(outcome: ItemOutcome): 'succeeded' | 'failed' | 'canceled' | 'expired' {
  return outcome.status === 'succeeded' ? 'succeeded' : outcome.status === 'errored' ? 'failed' : outcome.status
}

/** Statuses in which a task still has work or may end: quoted for SQL. */
export const activeSql = `('queued', 'in_progress', 'cancelling')`

/**
 * A page of an account's files, as both dialects ask for it: the order's direction and comparison, and the query's
 * parameters in order (account; purpose, twice; whether there is a cursor, its time and id; the limit). Each dialect
 * writes the statement with its own casts.
 */
export function filePageQuery(
  accountId: number,
  page: FilePage,
): { direction: string; compare: string; parameters: (string | number | null)[] } {
  return {
    direction: page.order === 'asc' ? 'ASC' : 'DESC',
    compare: page.order === 'asc' ? '>' : '<',
    parameters: [
      accountId,
      page.purpose ?? null,
      page.purpose ?? null,
      page.after ? 1 : null,
      page.after?.createdAt ?? 0,
      page.after?.id ?? '',
      page.limit,
    ],
  }
}

/** The statements both dialects write alike. */
export const taskSql = {
  insertTask: `INSERT INTO tasks (id, kind, account_id, key_id, status, endpoint, model, input_file_id, metadata, display_name, total, created_at, expires_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  findTask: 'SELECT * FROM tasks WHERE id = ?',
  countOpen: `SELECT count(*) AS open FROM tasks WHERE account_id = ? AND status IN ${activeSql}`,
  markCancelling: `UPDATE tasks SET status = 'cancelling', cancel_requested_at = ? WHERE id = ? AND status IN ('queued', 'in_progress')`,
  claimableTasks: `SELECT id, account_id FROM tasks WHERE status IN ('queued', 'in_progress') ORDER BY created_at, id`,
  claimItem: `UPDATE task_items SET status = 'running', owner = ?, lease_until = ?, started_at = ? WHERE id = ? RETURNING *`,
  startTask: `UPDATE tasks SET status = 'in_progress', started_at = ? WHERE id = ? AND status = 'queued'`,
  finishItem: `UPDATE task_items SET status = ?, status_code = ?, result = ?, cost = ?, finished_at = ?, owner = NULL, lease_until = NULL, staged = NULL
      WHERE id = ? AND status = 'running' AND owner = ? RETURNING task_id`,
  countEnd: (column: ReturnType<typeof counterOf>) => `UPDATE tasks SET ${column} = ${column} + 1, spent = spent + ? WHERE id = ?`,
  billedRun: `SELECT status, cost FROM usage_records WHERE account_id = ? AND created_at >= ? AND request_id = ? LIMIT 1`,
  storedFiles: `SELECT count(*) AS files, coalesce(sum(bytes), 0) AS bytes FROM task_files WHERE account_id = ? AND purpose = 'batch'`,
  insertFile: `INSERT INTO task_files (id, account_id, purpose, filename, bytes, task_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (id) DO UPDATE SET bytes = excluded.bytes`,
  insertFilePart:
    'INSERT INTO task_file_parts (file_id, seq, data) VALUES (?, ?, ?) ON CONFLICT (file_id, seq) DO UPDATE SET data = excluded.data',
  findFile: 'SELECT * FROM task_files WHERE id = ?',
  fileParts: 'SELECT seq, data FROM task_file_parts WHERE file_id = ? AND seq >= ? ORDER BY seq LIMIT ?',
  items: 'SELECT * FROM task_items WHERE task_id = ? AND seq > ? ORDER BY seq LIMIT ?',
  stageResult: `UPDATE task_items SET staged = ? WHERE id = ? AND status = 'running' AND owner = ?`,
  deferItem: `UPDATE task_items SET status = 'pending', owner = NULL, lease_until = NULL, staged = NULL, not_before = ? WHERE id = ? AND status = 'running' AND owner = ?`,
  renewLeases: `UPDATE task_items SET lease_until = ? WHERE status = 'running' AND owner = ?`,
  requeueItem: `UPDATE task_items SET status = 'pending', owner = NULL, lease_until = NULL, staged = NULL WHERE id = ? AND status = 'running' AND owner = ?`,
  hasWork: `SELECT EXISTS (SELECT 1 FROM tasks WHERE status IN ${activeSql}) OR EXISTS (SELECT 1 FROM task_items WHERE status = 'running') AS work`,
  finishableTasks: `SELECT * FROM tasks WHERE status IN ${activeSql}
        AND NOT EXISTS (SELECT 1 FROM task_items WHERE task_id = tasks.id AND status IN ('pending', 'running'))`,
  deleteTask: 'DELETE FROM tasks WHERE id = ?',
  deleteFile: 'DELETE FROM task_files WHERE id = ?',
} as const

/** How far before an orphan's start its usage row may have been written (the row's time is the request's start). */
export const billedRunSlackMs = 60_000
