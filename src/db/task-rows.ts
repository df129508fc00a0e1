import type { FileRecord, ItemRecord, TaskRecord } from '../domain/tasks/records.ts'

/** Rows of the task tables as both dialects return them (PostgreSQL's bigints arrive as strings). */
type Row = Record<string, unknown>

const numberOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value))

export function taskOf(row: Row): TaskRecord {
  return {
    id: row.id as string, kind: row.kind as TaskRecord['kind'], accountId: Number(row.account_id), keyId: row.key_id as string,
    status: row.status as TaskRecord['status'], endpoint: row.endpoint as string, model: (row.model as string | null) ?? null,
    inputFileId: (row.input_file_id as string | null) ?? null, outputFileId: (row.output_file_id as string | null) ?? null,
    errorFileId: (row.error_file_id as string | null) ?? null,
    metadata: row.metadata ? JSON.parse(row.metadata as string) : null, displayName: (row.display_name as string | null) ?? null,
    total: Number(row.total), succeeded: Number(row.succeeded), failed: Number(row.failed), canceled: Number(row.canceled),
    expired: Number(row.expired), spent: Number(row.spent), createdAt: Number(row.created_at), startedAt: numberOrNull(row.started_at),
    finishedAt: numberOrNull(row.finished_at), cancelRequestedAt: numberOrNull(row.cancel_requested_at), expiresAt: Number(row.expires_at),
  }
}

export function itemOf(row: Row): ItemRecord {
  return {
    id: row.id as string, taskId: row.task_id as string, seq: Number(row.seq), customId: row.custom_id as string, body: row.body as string,
    status: row.status as ItemRecord['status'], result: (row.result as string | null) ?? null, statusCode: numberOrNull(row.status_code),
    cost: Number(row.cost), startedAt: numberOrNull(row.started_at), finishedAt: numberOrNull(row.finished_at),
  }
}

export function fileOf(row: Row): FileRecord {
  return {
    id: row.id as string, accountId: Number(row.account_id), purpose: row.purpose as FileRecord['purpose'], filename: row.filename as string,
    bytes: Number(row.bytes), taskId: (row.task_id as string | null) ?? null, createdAt: Number(row.created_at), expiresAt: numberOrNull(row.expires_at),
  }
}

export function taskValues(task: TaskRecord): unknown[] {
  return [task.id, task.kind, task.accountId, task.keyId, task.status, task.endpoint, task.model, task.inputFileId, task.metadata === null ? null : JSON.stringify(task.metadata),
    task.displayName, task.total, task.createdAt, task.expiresAt]
}

export const insertTaskSql = `INSERT INTO tasks (id, kind, account_id, key_id, status, endpoint, model, input_file_id, metadata, display_name, total, created_at, expires_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

/** Statuses in which a task still has work or may end: quoted for SQL. */
export const activeSql = `('queued', 'in_progress', 'cancelling')`
