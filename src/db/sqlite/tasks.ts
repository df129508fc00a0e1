import type { Database } from 'bun:sqlite'
import type { FileRecord, ItemOutcome, NewItem, TaskRecord, TaskStatus } from '../../domain/tasks/records.ts'
import type { ClaimedItem, FilePage, OrphanedItem, TaskPage, TaskRepository } from '../../domain/tasks/repository.ts'
import { activeSql, fileOf, insertTaskSql, itemOf, taskOf, taskValues } from '../task-rows.ts'

type Row = Record<string, any>

/**
 * Tasks on SQLite. bun:sqlite is synchronous, so every multi-statement change runs inside one `transaction()`
 * call with nothing awaited in between: no other statement on the shared connection (the ledger's) can interleave.
 */
export function createSqliteTasks(client: Database): TaskRepository {
  const all = (sql: string, ...params: any[]) => client.query(sql).all(...params) as Row[]
  const get = (sql: string, ...params: any[]) => client.query(sql).get(...params) as Row | null
  const run = (sql: string, ...params: any[]) => client.query(sql).run(...params).changes
  const findTask = (id: string) => {
    const row = get('SELECT * FROM tasks WHERE id = ?', id)
    return row ? taskOf(row) : undefined
  }

  const createTask = client.transaction((task: TaskRecord, items: NewItem[]) => {
    run(insertTaskSql, ...taskValues(task))
    const insert = client.query('INSERT INTO task_items (id, task_id, seq, custom_id, body, status) VALUES (?, ?, ?, ?, ?, \'pending\')')
    for (const item of items) insert.run(item.id, task.id, item.seq, item.customId, item.body)
  })

  /** Pending items of a task end without running (`canceled` or `expired`), counted on the task. */
  const endPending = (taskId: string, status: 'canceled' | 'expired', at: number) => {
    const ended = run(`UPDATE task_items SET status = ?, finished_at = ? WHERE task_id = ? AND status = 'pending'`, status, at, taskId)
    if (ended > 0) run(`UPDATE tasks SET ${status} = ${status} + ? WHERE id = ?`, ended, taskId)
  }

  const requestCancel = client.transaction((id: string, at: number) => {
    const changed = run(`UPDATE tasks SET status = 'cancelling', cancel_requested_at = ? WHERE id = ? AND status IN ('queued', 'in_progress')`, at, id)
    if (changed === 0) return undefined
    endPending(id, 'canceled', at)
    return findTask(id)
  })

  const claimItem = client.transaction((owner: string, now: number, leaseUntil: number, busy: number[]): ClaimedItem | undefined => {
    const tasks = all(`SELECT id FROM tasks WHERE status IN ('queued', 'in_progress') AND account_id NOT IN (SELECT value FROM json_each(?)) ORDER BY created_at, id`, JSON.stringify(busy))
    for (const { id } of tasks) {
      const row = get(`UPDATE task_items SET status = 'running', owner = ?, lease_until = ?, started_at = ?
        WHERE id = (SELECT id FROM task_items WHERE status = 'pending' AND task_id = ? AND not_before <= ? ORDER BY seq LIMIT 1) RETURNING *`,
        owner, leaseUntil, now, id, now)
      if (!row) continue
      run(`UPDATE tasks SET status = 'in_progress', started_at = ? WHERE id = ? AND status = 'queued'`, now, id)
      return { item: itemOf(row), task: findTask(id)! }
    }
    return undefined
  })

  const finishItem = client.transaction((itemId: string, owner: string, outcome: ItemOutcome) => {
    const row = get(`UPDATE task_items SET status = ?, status_code = ?, result = ?, cost = ?, finished_at = ?, owner = NULL, lease_until = NULL, staged = NULL
      WHERE id = ? AND status = 'running' AND owner = ? RETURNING task_id`, outcome.status, outcome.statusCode, outcome.result, outcome.cost, outcome.at, itemId, owner)
    if (!row) return false
    const column = outcome.status === 'succeeded' ? 'succeeded' : outcome.status === 'errored' ? 'failed' : outcome.status
    run(`UPDATE tasks SET ${column} = ${column} + 1, spent = spent + ? WHERE id = ?`, outcome.cost, row.task_id)
    return true
  })

  const adoptOrphans = client.transaction((owner: string, now: number, leaseUntil: number, anyOtherOwner: boolean): OrphanedItem[] => {
    const rows = all(`UPDATE task_items SET owner = ?, lease_until = ? WHERE status = 'running' AND owner IS NOT ? AND (? OR lease_until < ?) RETURNING *`,
      owner, leaseUntil, owner, anyOtherOwner ? 1 : 0, now)
    return rows.map((row) => {
      const task = findTask(row.task_id)!
      // The usage row of a billed run has the item's id as its request id: found through the account's time index.
      const billed = get(`SELECT status, cost FROM usage_records WHERE account_id = ? AND created_at >= ? AND request_id = ? LIMIT 1`,
        task.accountId, Number(row.started_at ?? 0) - 60_000, row.id)
      return { item: itemOf(row), task, staged: row.staged ?? null, billed: billed ? { status: Number(billed.status), cost: Number(billed.cost) } : undefined }
    })
  })

  const expireDue = client.transaction((now: number) => {
    const due = all(`SELECT id FROM tasks WHERE status IN ('queued', 'in_progress') AND expires_at <= ?`, now)
    for (const { id } of due) endPending(id, 'expired', now)
    return due.length
  })

  const purge = client.transaction((before: number, now: number) => {
    const tasks = all(`SELECT id FROM tasks WHERE finished_at IS NOT NULL AND finished_at < ?`, before)
    for (const { id } of tasks) {
      run('DELETE FROM task_items WHERE task_id = ?', id)
      run('DELETE FROM tasks WHERE id = ?', id)
    }
    const files = all(`SELECT id FROM task_files WHERE (expires_at IS NULL AND created_at < ?) OR expires_at < ?`, before, now)
    for (const { id } of files) deleteFile(id)
    return { tasks: tasks.length, files: files.length }
  })

  const deleteFile = client.transaction((id: string) => {
    run('DELETE FROM task_file_parts WHERE file_id = ?', id)
    return run('DELETE FROM task_files WHERE id = ?', id) > 0
  })

  const deleteTask = client.transaction((id: string) => {
    run('DELETE FROM task_items WHERE task_id = ?', id)
    return run('DELETE FROM tasks WHERE id = ?', id) > 0
  })

  return {
    async insertFilePart(fileId, seq, data) {
      run('INSERT INTO task_file_parts (file_id, seq, data) VALUES (?, ?, ?) ON CONFLICT (file_id, seq) DO UPDATE SET data = excluded.data', fileId, seq, data)
    },
    async insertFile(file: FileRecord) {
      run(`INSERT INTO task_files (id, account_id, purpose, filename, bytes, task_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (id) DO UPDATE SET bytes = excluded.bytes`, file.id, file.accountId, file.purpose, file.filename, file.bytes, file.taskId, file.createdAt, file.expiresAt)
    },
    async findFile(id) {
      const row = get('SELECT * FROM task_files WHERE id = ?', id)
      return row ? fileOf(row) : undefined
    },
    async listFiles(accountId, page: FilePage) {
      const direction = page.order === 'asc' ? 'ASC' : 'DESC'
      const compare = page.order === 'asc' ? '>' : '<'
      const rows = all(`SELECT * FROM task_files WHERE account_id = ? AND (? IS NULL OR purpose = ?)
        AND (? IS NULL OR (created_at, id) ${compare} (?, ?)) ORDER BY created_at ${direction}, id ${direction} LIMIT ?`,
        accountId, page.purpose ?? null, page.purpose ?? null, page.after ? 1 : null, page.after?.createdAt ?? 0, page.after?.id ?? '', page.limit)
      return rows.map(fileOf)
    },
    async fileParts(fileId, fromSeq, limit) {
      return all('SELECT seq, data FROM task_file_parts WHERE file_id = ? AND seq >= ? ORDER BY seq LIMIT ?', fileId, fromSeq, limit) as { seq: number; data: string }[]
    },
    async deleteFile(id) {
      return deleteFile(id)
    },
    async createTask(task, items) {
      createTask(task, items)
    },
    async findTask(id) {
      return findTask(id)
    },
    async listTasks(accountId, page: TaskPage) {
      const kind = page.kind ?? null
      if (page.newerThan) {
        const rows = all(`SELECT * FROM tasks WHERE account_id = ? AND (? IS NULL OR kind = ?) AND (created_at, id) > (?, ?) ORDER BY created_at ASC, id ASC LIMIT ?`,
          accountId, kind, kind, page.newerThan.createdAt, page.newerThan.id, page.limit)
        return rows.map(taskOf).reverse()
      }
      const rows = all(`SELECT * FROM tasks WHERE account_id = ? AND (? IS NULL OR kind = ?) AND (? IS NULL OR (created_at, id) < (?, ?)) ORDER BY created_at DESC, id DESC LIMIT ?`,
        accountId, kind, kind, page.olderThan ? 1 : null, page.olderThan?.createdAt ?? 0, page.olderThan?.id ?? '', page.limit)
      return rows.map(taskOf)
    },
    async deleteTask(id) {
      return deleteTask(id)
    },
    async requestCancel(id, at) {
      return requestCancel(id, at)
    },
    async items(taskId, afterSeq, limit) {
      return all('SELECT * FROM task_items WHERE task_id = ? AND seq > ? ORDER BY seq LIMIT ?', taskId, afterSeq, limit).map(itemOf)
    },
    async claimItem(owner, now, leaseUntil, busyAccounts) {
      return claimItem(owner, now, leaseUntil, busyAccounts)
    },
    async stageResult(itemId, owner, body) {
      run(`UPDATE task_items SET staged = ? WHERE id = ? AND status = 'running' AND owner = ?`, body, itemId, owner)
    },
    async finishItem(itemId, owner, outcome) {
      return finishItem(itemId, owner, outcome)
    },
    async deferItem(itemId, owner, notBefore) {
      run(`UPDATE task_items SET status = 'pending', owner = NULL, lease_until = NULL, staged = NULL, not_before = ? WHERE id = ? AND status = 'running' AND owner = ?`, notBefore, itemId, owner)
    },
    async renewLeases(owner, leaseUntil) {
      run(`UPDATE task_items SET lease_until = ? WHERE status = 'running' AND owner = ?`, leaseUntil, owner)
    },
    async adoptOrphans(owner, now, leaseUntil, anyOtherOwner) {
      return adoptOrphans(owner, now, leaseUntil, anyOtherOwner)
    },
    async requeueItem(itemId, owner) {
      run(`UPDATE task_items SET status = 'pending', owner = NULL, lease_until = NULL, staged = NULL WHERE id = ? AND status = 'running' AND owner = ?`, itemId, owner)
    },
    async expireDue(now) {
      return expireDue(now)
    },
    async finishableTasks() {
      return all(`SELECT * FROM tasks WHERE status IN ${activeSql}
        AND NOT EXISTS (SELECT 1 FROM task_items WHERE task_id = tasks.id AND status IN ('pending', 'running'))`).map(taskOf)
    },
    async finalizeTask(id, status: TaskStatus, at, files) {
      return run(`UPDATE tasks SET status = ?, finished_at = ?, output_file_id = coalesce(?, output_file_id), error_file_id = coalesce(?, error_file_id)
        WHERE id = ? AND status IN ${activeSql}`, status, at, files?.outputFileId ?? null, files?.errorFileId ?? null, id) > 0
    },
    async purge(before, now) {
      return purge(before, now)
    },
  }
}
