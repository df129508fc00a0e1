import { formatUsd } from '../../core/money.ts'
import type { TaskRecord } from './records.ts'

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

/** One view of a task, whatever protocol submitted it (GET /v1/tasks, `tollgate task`): spend as an exact decimal. */
export function presentTask(task: TaskRecord) {
  const ended = task.succeeded + task.failed + task.canceled + task.expired
  return {
    id: task.id,
    object: 'task',
    kind: task.kind,
    status: task.status,
    account_id: task.accountId,
    key_id: task.keyId,
    counts: {
      total: task.total,
      pending: task.total - ended,
      succeeded: task.succeeded,
      failed: task.failed,
      canceled: task.canceled,
      expired: task.expired,
    },
    created_at: iso(task.createdAt),
    started_at: iso(task.startedAt),
    finished_at: iso(task.finishedAt),
    expires_at: iso(task.expiresAt),
    spent: formatUsd(task.spent),
  }
}
