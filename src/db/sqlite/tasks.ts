import type { Database, SQLQueryBindings } from 'bun:sqlite'
import { Pacer } from '../../core/pace.ts'
import type { ItemOutcome, TaskRecord, TaskStatus } from '../../domain/tasks/records.ts'
import type { ClaimedItem, ItemEnd, OrphanedItem, TaskPage, TaskRepository } from '../../domain/tasks/repository.ts'
import * as taskRows from '../task-rows.ts'
import type { AuditNote } from '../../domain/audit/records.ts'
import { writeAuditRaw } from './audit.ts'
import { createSqliteTaskFiles } from './task-files.ts'
import { createTaskSlices } from './task-slices.ts'

/**
 * Tasks on SQLite. bun:sqlite is synchronous, so every multi-statement change runs inside one `transaction()`
 * call with nothing awaited in between: no other statement on the shared connection (the ledger's) can interleave.
 * Changes to many rows are cut into such transactions, with yields between them (task-slices.ts); the uploaded files
 * and their parts are task-files.ts.
 */
export function createSqliteTasks(client: Database): TaskRepository {
  const all = <Row>(sql: string, ...params: SQLQueryBindings[]) => client.query<Row, SQLQueryBindings[]>(sql).all(...params)
  const get = <Row>(sql: string, ...params: SQLQueryBindings[]) => client.query<Row, SQLQueryBindings[]>(sql).get(...params)
  const run = (sql: string, ...params: SQLQueryBindings[]) => client.query(sql).run(...params).changes
  const findTask = (id: string) => {
    const row = get<taskRows.TaskRow>(taskRows.taskSql.findTask, id)
    return row ? taskRows.taskOf(row) : undefined
  }

  const slices = createTaskSlices(client)

  /** The task's row, written after its items (so they are seen together), if its account has room for it. */
  const insertTask = client.transaction((task: TaskRecord, maxOpen: number) => {
    if (countOpen(task.accountId) >= maxOpen) return false
    run(taskRows.taskSql.insertTask, ...taskRows.taskValues(task))
    return true
  })
  const countOpen = (accountId: number) => Number(get<taskRows.OpenCountRow>(taskRows.taskSql.countOpen, accountId)!.open)

  /** The task turns `cancelling` at once, with its audit row; its pending items then end `canceled` a slice at a time. */
  const markCancelling = client.transaction((id: string, at: number, audit?: AuditNote<TaskRecord>) => {
    const before = findTask(id)
    if (run(taskRows.taskSql.markCancelling, at, id) === 0) return false
    writeAuditRaw(client, audit?.(before, findTask(id)))
    return true
  })

  const nextPending = (taskId: string, now: number) =>
    get<taskRows.IdRow>(
      `SELECT id FROM task_items WHERE status = 'pending' AND task_id = ? AND not_before <= ? ORDER BY seq LIMIT 1`,
      taskId,
      now,
    )
  const claimItems = client.transaction(
    (owner: string, now: number, leaseUntil: number, max: number, take: (accountId: number) => boolean): ClaimedItem[] => {
      const claimed: ClaimedItem[] = []
      const tasks = all<taskRows.TaskOwnerRow>(taskRows.taskSql.claimableTasks)
      for (const { id, account_id: accountId } of tasks) {
        const items = []
        for (
          let next = nextPending(id, now);
          next && claimed.length + items.length < max && take(Number(accountId));
          next = nextPending(id, now)
        ) {
          items.push(taskRows.itemOf(get<taskRows.ItemRow>(taskRows.taskSql.claimItem, owner, leaseUntil, now, next.id)!))
        }
        if (items.length === 0) continue
        run(taskRows.taskSql.startTask, now, id)
        const task = findTask(id)!
        for (const item of items) claimed.push({ item, task })
        if (claimed.length === max) break
      }
      return claimed
    },
  )

  const finishItem = (itemId: string, owner: string, outcome: ItemOutcome) => {
    const row = get<Pick<taskRows.ItemRow, 'task_id'>>(
      taskRows.taskSql.finishItem,
      outcome.status,
      outcome.statusCode,
      outcome.result,
      outcome.cost,
      outcome.at,
      itemId,
      owner,
    )
    if (!row) return false
    run(taskRows.taskSql.countEnd(taskRows.counterOf(outcome)), outcome.cost, row.task_id)
    return true
  }
  const finishItems = client.transaction((owner: string, ends: ItemEnd[]) =>
    ends.map(({ itemId, outcome }) => finishItem(itemId, owner, outcome)),
  )

  const adoptOrphans = client.transaction((owner: string, now: number, leaseUntil: number, anyOtherOwner: boolean): OrphanedItem[] => {
    const rows = all<taskRows.ItemRow>(
      `UPDATE task_items SET owner = ?, lease_until = ? WHERE status = 'running' AND owner IS NOT ? AND (? OR lease_until < ?) RETURNING *`,
      owner,
      leaseUntil,
      owner,
      anyOtherOwner ? 1 : 0,
      now,
    )
    return rows.map((row) => {
      const task = findTask(row.task_id)!
      // The usage row of a billed run has the item's id as its request id: found through the account's time index.
      const billed = get<taskRows.BilledRow>(
        taskRows.taskSql.billedRun,
        task.accountId,
        Number(row.started_at ?? 0) - taskRows.billedRunSlackMs,
        row.id,
      )
      return { item: taskRows.itemOf(row), task, staged: row.staged ?? null, billed: taskRows.billedOf(billed) }
    })
  })

  /** A task's row goes first (it is gone at once), then its items a slice at a time. */
  const deleteTask = async (id: string) => {
    const deleted = run(taskRows.taskSql.deleteTask, id) > 0
    await slices.deleteItems(id)
    return deleted
  }

  const uploaded = createSqliteTaskFiles(client, slices)

  return {
    ...uploaded,
    async createTask(task, items, maxOpen = Number.POSITIVE_INFINITY) {
      try {
        await slices.insertItems(task.id, items)
        if (insertTask(task, maxOpen)) return true
      } catch (error) {
        await slices.deleteItems(task.id)
        throw error
      }
      await slices.deleteItems(task.id)
      return false
    },
    async openTaskCount(accountId) {
      return countOpen(accountId)
    },
    async findTask(id) {
      return findTask(id)
    },
    async listTasks(accountId, page: TaskPage) {
      const kind = page.kind ?? null
      if (page.newerThan) {
        const rows = all<taskRows.TaskRow>(
          `SELECT * FROM tasks WHERE account_id = ? AND (? IS NULL OR kind = ?) AND (created_at, id) > (?, ?) ORDER BY created_at ASC, id ASC LIMIT ?`,
          accountId,
          kind,
          kind,
          page.newerThan.createdAt,
          page.newerThan.id,
          page.limit,
        )
        return rows.map(taskRows.taskOf).reverse()
      }
      const rows = all<taskRows.TaskRow>(
        `SELECT * FROM tasks WHERE account_id = ? AND (? IS NULL OR kind = ?) AND (? IS NULL OR (created_at, id) < (?, ?)) ORDER BY created_at DESC, id DESC LIMIT ?`,
        accountId,
        kind,
        kind,
        page.olderThan ? 1 : null,
        page.olderThan?.createdAt ?? 0,
        page.olderThan?.id ?? '',
        page.limit,
      )
      return rows.map(taskRows.taskOf)
    },
    deleteTask,
    async requestCancel(id, at, audit) {
      if (!markCancelling.immediate(id, at, audit)) return undefined
      await slices.endPending(id, 'canceled', at)
      return findTask(id)
    },
    async items(taskId, afterSeq, limit) {
      return all<taskRows.ItemRow>(taskRows.taskSql.items, taskId, afterSeq, limit).map(taskRows.itemOf)
    },
    async claimItems(owner, now, leaseUntil, max, take) {
      return claimItems(owner, now, leaseUntil, max, take)
    },
    async stageResult(itemId, owner, body) {
      run(taskRows.taskSql.stageResult, body, itemId, owner)
    },
    async finishItems(owner, ends) {
      return finishItems(owner, ends)
    },
    async deferItem(itemId, owner, notBefore) {
      run(taskRows.taskSql.deferItem, notBefore, itemId, owner)
    },
    async renewLeases(owner, leaseUntil) {
      run(taskRows.taskSql.renewLeases, leaseUntil, owner)
    },
    async adoptOrphans(owner, now, leaseUntil, anyOtherOwner) {
      return adoptOrphans(owner, now, leaseUntil, anyOtherOwner)
    },
    async hasWork() {
      return get<{ work: number }>(taskRows.taskSql.hasWork)!.work !== 0
    },
    async requeueItem(itemId, owner) {
      run(taskRows.taskSql.requeueItem, itemId, owner)
    },
    async expireDue(now) {
      const due = all<taskRows.IdRow>(`SELECT id FROM tasks WHERE status IN ('queued', 'in_progress') AND expires_at <= ?`, now)
      for (const { id } of due) await slices.endPending(id, 'expired', now)
      // A cancel a crash cut short (its task `cancelling`, items still pending) is carried on.
      const cancelled = all<
        Pick<taskRows.TaskRow, 'id' | 'cancel_requested_at'>
      >(`SELECT id, cancel_requested_at FROM tasks WHERE status = 'cancelling'
        AND EXISTS (SELECT 1 FROM task_items WHERE status = 'pending' AND task_id = tasks.id)`)
      for (const { id, cancel_requested_at: at } of cancelled) await slices.endPending(id, 'canceled', Number(at))
      return due.length
    },
    async finishableTasks() {
      return all<taskRows.TaskRow>(taskRows.taskSql.finishableTasks).map(taskRows.taskOf)
    },
    async finalizeTask(id, status: TaskStatus, at, files) {
      return (
        run(
          `UPDATE tasks SET status = ?, finished_at = ?, output_file_id = coalesce(?, output_file_id), error_file_id = coalesce(?, error_file_id)
        WHERE id = ? AND status IN ${taskRows.activeSql}`,
          status,
          at,
          files?.outputFileId ?? null,
          files?.errorFileId ?? null,
          id,
        ) > 0
      )
    },
    async purge(before, now) {
      const tasks = all<taskRows.IdRow>(`SELECT id FROM tasks WHERE finished_at IS NOT NULL AND finished_at < ?`, before)
      for (const { id } of tasks) await deleteTask(id)
      const stale = all<taskRows.IdRow>(
        `SELECT id FROM task_files WHERE (expires_at IS NULL AND created_at < ?) OR expires_at < ?`,
        before,
        now,
      )
      for (const { id } of stale) await uploaded.deleteFile(id)
      return { tasks: tasks.length, files: stale.length }
    },
    async removeLeftovers() {
      // One index seek per task (or file) id found: never a scan of every item.
      let removed = 0
      const pacer = new Pacer()
      for (let after = ''; ; await pacer.pace()) {
        const row = get<Pick<taskRows.ItemRow, 'task_id'>>(
          'SELECT task_id FROM task_items WHERE task_id > ? ORDER BY task_id LIMIT 1',
          after,
        )
        if (!row) break
        after = row.task_id
        if (!get('SELECT 1 FROM tasks WHERE id = ?', after)) removed += await slices.deleteItems(after)
      }
      for (let after = ''; ; await pacer.pace()) {
        const row = get<{ file_id: string }>('SELECT file_id FROM task_file_parts WHERE file_id > ? ORDER BY file_id LIMIT 1', after)
        if (!row) break
        after = row.file_id
        if (!get('SELECT 1 FROM task_files WHERE id = ?', after)) removed += await slices.deleteParts(after)
      }
      return removed
    },
  }
}
