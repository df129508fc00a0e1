import type { SQL } from 'bun'
import type { ItemOutcome, TaskStatus } from '../../domain/tasks/records.ts'
import type { ClaimedItem, TaskRepository } from '../../domain/tasks/repository.ts'
import { quotaPassed } from '../../domain/tasks/quotas.ts'
import * as taskRows from '../task-rows.ts'
import { writeAuditRaw } from './audit.ts'
import { rawSql, type Runner } from './raw-sql.ts'

/**
 * Tasks on PostgreSQL, shared by several instances: an item is claimed with `FOR UPDATE SKIP LOCKED`, so two
 * instances never take the same one, and its owner's lease (renewed while it runs) tells the others when it is an
 * orphan of a dead instance.
 */
export function createPostgresTasks(client: SQL): TaskRepository {
  const { all, first, run } = rawSql(client)
  const findTask = async (id: string, on: Runner = client) => {
    const row = await first<taskRows.TaskRow>(taskRows.taskSql.findTask, [id], on)
    return row ? taskRows.taskOf(row) : undefined
  }
  const endPending = async (taskId: string, status: 'canceled' | 'expired', at: number, tx: Runner) => {
    const ended = await run(
      `UPDATE task_items SET status = ?, finished_at = ? WHERE task_id = ? AND status = 'pending'`,
      [status, at, taskId],
      tx,
    )
    if (ended > 0) await run(`UPDATE tasks SET ${status} = ${status} + ? WHERE id = ?`, [ended, taskId], tx)
  }
  const finishItem = async (itemId: string, owner: string, outcome: ItemOutcome, tx: Runner) => {
    const row = await first<Pick<taskRows.ItemRow, 'task_id'>>(
      taskRows.taskSql.finishItem,
      [outcome.status, outcome.statusCode, outcome.result, outcome.cost, outcome.at, itemId, owner],
      tx,
    )
    if (!row) return false
    await run(taskRows.taskSql.countEnd(taskRows.counterOf(outcome)), [outcome.cost, row.task_id], tx)
    return true
  }
  /** Serializes the quota checks of one account, across instances, until the transaction ends. */
  const lockAccount = (accountId: number, tx: Runner) =>
    all(`SELECT pg_advisory_xact_lock(hashtextextended('tollgate-task-quota:' || ?::text, 0))`, [accountId], tx)
  const storedFiles = async (accountId: number, on: Runner = client) => {
    const row = (await first<taskRows.StoredFilesRow>(taskRows.taskSql.storedFiles, [accountId], on))!
    return { files: Number(row.files), bytes: Number(row.bytes) }
  }
  const countOpen = async (accountId: number, on: Runner = client) =>
    Number((await first<taskRows.OpenCountRow>(taskRows.taskSql.countOpen, [accountId], on))!.open)
  const deleteFile = (id: string) =>
    client.begin(async (tx) => {
      await run('DELETE FROM task_file_parts WHERE file_id = ?', [id], tx)
      return (await run(taskRows.taskSql.deleteFile, [id], tx)) > 0
    })

  return {
    async insertFilePart(fileId, seq, data) {
      await run(taskRows.taskSql.insertFilePart, [fileId, seq, data])
    },
    insertFile: (file, quota) =>
      client.begin(async (tx) => {
        if (quota) {
          // Two uploads of one account at once are counted one after the other (on any instance).
          await lockAccount(file.accountId, tx)
          const passed = quotaPassed(await storedFiles(file.accountId, tx), file.bytes, quota)
          if (passed) return passed
        }
        await run(taskRows.taskSql.insertFile, taskRows.fileValues(file), tx)
        return 'stored' as const
      }),
    storedFiles: (accountId) => storedFiles(accountId),
    async findFile(id) {
      const row = await first<taskRows.FileRow>(taskRows.taskSql.findFile, [id])
      return row ? taskRows.fileOf(row) : undefined
    },
    async listFiles(accountId, page) {
      const { direction, compare, parameters } = taskRows.filePageQuery(accountId, page)
      const rows = await all<taskRows.FileRow>(
        `SELECT * FROM task_files WHERE account_id = ? AND (?::text IS NULL OR purpose = ?::text)
        AND (?::int IS NULL OR (created_at, id) ${compare} (?::bigint, ?::text)) ORDER BY created_at ${direction}, id ${direction} LIMIT ?`,
        parameters,
      )
      return rows.map(taskRows.fileOf)
    },
    async fileParts(fileId, fromSeq, limit) {
      const rows = await all<taskRows.FilePartRow>(taskRows.taskSql.fileParts, [fileId, fromSeq, limit])
      return rows.map((row) => ({ seq: Number(row.seq), data: row.data }))
    },
    deleteFile,
    createTask: (task, items, maxOpen = Number.POSITIVE_INFINITY) =>
      client.begin(async (tx) => {
        if (Number.isFinite(maxOpen)) {
          await lockAccount(task.accountId, tx)
          if ((await countOpen(task.accountId, tx)) >= maxOpen) return false
        }
        await run(taskRows.taskSql.insertTask, taskRows.taskValues(task), tx)
        for (let start = 0; start < items.length; start += 500) {
          const chunk = items.slice(start, start + 500)
          await run(
            `INSERT INTO task_items (id, task_id, seq, custom_id, body, status) VALUES ${chunk.map(() => `(?, ?, ?, ?, ?, 'pending')`).join(', ')}`,
            chunk.flatMap((item) => [item.id, task.id, item.seq, item.customId, item.body]),
            tx,
          )
        }
        return true
      }),
    openTaskCount: (accountId) => countOpen(accountId),
    findTask: (id) => findTask(id),
    async listTasks(accountId, page) {
      const kind = page.kind ?? null
      if (page.newerThan) {
        const rows = await all<taskRows.TaskRow>(
          `SELECT * FROM tasks WHERE account_id = ? AND (?::text IS NULL OR kind = ?::text) AND (created_at, id) > (?::bigint, ?::text)
          ORDER BY created_at ASC, id ASC LIMIT ?`,
          [accountId, kind, kind, page.newerThan.createdAt, page.newerThan.id, page.limit],
        )
        return rows.map(taskRows.taskOf).reverse()
      }
      const rows = await all<taskRows.TaskRow>(
        `SELECT * FROM tasks WHERE account_id = ? AND (?::text IS NULL OR kind = ?::text)
        AND (?::int IS NULL OR (created_at, id) < (?::bigint, ?::text)) ORDER BY created_at DESC, id DESC LIMIT ?`,
        [accountId, kind, kind, page.olderThan ? 1 : null, page.olderThan?.createdAt ?? 0, page.olderThan?.id ?? '', page.limit],
      )
      return rows.map(taskRows.taskOf)
    },
    deleteTask: (id) =>
      client.begin(async (tx) => {
        await run('DELETE FROM task_items WHERE task_id = ?', [id], tx)
        return (await run(taskRows.taskSql.deleteTask, [id], tx)) > 0
      }),
    requestCancel: (id, at, audit) =>
      client.begin(async (tx) => {
        const before = await first<taskRows.TaskRow>(`${taskRows.taskSql.findTask} FOR UPDATE`, [id], tx)
        const changed = await run(taskRows.taskSql.markCancelling, [at, id], tx)
        if (changed === 0) return undefined
        await endPending(id, 'canceled', at, tx)
        const after = await findTask(id, tx)
        await writeAuditRaw(tx, audit?.(before && taskRows.taskOf(before), after))
        return after
      }),
    async items(taskId, afterSeq, limit) {
      return (await all<taskRows.ItemRow>(taskRows.taskSql.items, [taskId, afterSeq, limit])).map(taskRows.itemOf)
    },
    claimItems: (owner, now, leaseUntil, max, take) =>
      client.begin(async (tx) => {
        const claimed: ClaimedItem[] = []
        const tasks = await all<taskRows.TaskOwnerRow>(taskRows.taskSql.claimableTasks, [], tx)
        for (const { id, account_id: accountId } of tasks) {
          const items = []
          while (claimed.length + items.length < max) {
            // SKIP LOCKED: an item another instance is claiming right now is passed over, never waited for or taken twice.
            const next = await first<taskRows.IdRow>(
              `SELECT id FROM task_items WHERE status = 'pending' AND task_id = ? AND not_before <= ? ORDER BY seq LIMIT 1 FOR UPDATE SKIP LOCKED`,
              [id, now],
              tx,
            )
            if (!next || !take(Number(accountId))) break
            const row = await first<taskRows.ItemRow>(taskRows.taskSql.claimItem, [owner, leaseUntil, now, next.id], tx)
            items.push(taskRows.itemOf(row!))
          }
          if (items.length === 0) continue
          await run(taskRows.taskSql.startTask, [now, id], tx)
          const task = (await findTask(id, tx))!
          for (const item of items) claimed.push({ item, task })
          if (claimed.length === max) break
        }
        return claimed
      }),
    async stageResult(itemId, owner, body) {
      await run(taskRows.taskSql.stageResult, [body, itemId, owner])
    },
    finishItems: (owner, ends) =>
      client.begin(async (tx) => {
        const finished: boolean[] = []
        for (const { itemId, outcome } of ends) finished.push(await finishItem(itemId, owner, outcome, tx))
        return finished
      }),
    async deferItem(itemId, owner, notBefore) {
      await run(taskRows.taskSql.deferItem, [notBefore, itemId, owner])
    },
    async renewLeases(owner, leaseUntil) {
      await run(taskRows.taskSql.renewLeases, [leaseUntil, owner])
    },
    adoptOrphans: (owner, now, leaseUntil, anyOtherOwner) =>
      client.begin(async (tx) => {
        const rows = await all<taskRows.ItemRow>(
          `UPDATE task_items SET owner = ?, lease_until = ? WHERE id IN (SELECT id FROM task_items WHERE status = 'running'
        AND owner IS DISTINCT FROM ? AND (?::boolean OR lease_until < ?) FOR UPDATE SKIP LOCKED) RETURNING *`,
          [owner, leaseUntil, owner, anyOtherOwner, now],
          tx,
        )
        const orphans = []
        for (const row of rows) {
          const task = (await findTask(row.task_id, tx))!
          const billed = await first<taskRows.BilledRow>(
            taskRows.taskSql.billedRun,
            [task.accountId, Number(row.started_at ?? 0) - taskRows.billedRunSlackMs, row.id],
            tx,
          )
          orphans.push({ item: taskRows.itemOf(row), task, staged: row.staged ?? null, billed: taskRows.billedOf(billed) })
        }
        return orphans
      }),
    async hasWork() {
      return (await first<{ work: boolean }>(taskRows.taskSql.hasWork, []))!.work === true
    },
    async requeueItem(itemId, owner) {
      await run(taskRows.taskSql.requeueItem, [itemId, owner])
    },
    expireDue: (now) =>
      client.begin(async (tx) => {
        const due = await all<taskRows.IdRow>(
          `SELECT id FROM tasks WHERE status IN ('queued', 'in_progress') AND expires_at <= ? FOR UPDATE SKIP LOCKED`,
          [now],
          tx,
        )
        for (const { id } of due) await endPending(id, 'expired', now, tx)
        return due.length
      }),
    async finishableTasks() {
      return (await all<taskRows.TaskRow>(taskRows.taskSql.finishableTasks)).map(taskRows.taskOf)
    },
    async finalizeTask(id, status: TaskStatus, at, files) {
      return (
        (await run(
          `UPDATE tasks SET status = ?, finished_at = ?, output_file_id = coalesce(?::text, output_file_id), error_file_id = coalesce(?::text, error_file_id)
        WHERE id = ? AND status IN ${taskRows.activeSql}`,
          [status, at, files?.outputFileId ?? null, files?.errorFileId ?? null, id],
        )) > 0
      )
    },
    purge: (before, now) =>
      client.begin(async (tx) => {
        const tasks = await all<taskRows.IdRow>(
          `DELETE FROM tasks WHERE finished_at IS NOT NULL AND finished_at < ? RETURNING id`,
          [before],
          tx,
        )
        for (const { id } of tasks) await run('DELETE FROM task_items WHERE task_id = ?', [id], tx)
        const files = await all<taskRows.IdRow>(
          `DELETE FROM task_files WHERE (expires_at IS NULL AND created_at < ?) OR expires_at < ? RETURNING id`,
          [before, now],
          tx,
        )
        for (const { id } of files) await run('DELETE FROM task_file_parts WHERE file_id = ?', [id], tx)
        return { tasks: tasks.length, files: files.length }
      }),
    // Every change above is one transaction: a crash leaves nothing half-done to clear.
    removeLeftovers: async () => 0,
  }
}
