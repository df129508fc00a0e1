import { Elysia } from 'elysia'
import { invalidRequest } from '../../core/errors.ts'
import { formatUsd } from '../../core/money.ts'
import { accountNames } from '../../domain/accounts.ts'
import type { ItemRecord, TaskRecord } from '../../domain/tasks/records.ts'
import type { Services } from '../../edge/services.ts'
import { notFound } from './respond.ts'
import * as schema from './schemas.ts'
import { ownAccountId, seesEveryAccount, visibleAccount, visibleTask } from './scope.ts'
import { signedIn } from './signed-in.ts'

const tags = ['Tasks']
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

function taskJson(task: TaskRecord, account?: string | null) {
  const ended = task.succeeded + task.failed + task.canceled + task.expired
  return {
    id: task.id,
    kind: task.kind,
    status: task.status,
    account_id: task.accountId,
    account,
    key_id: task.keyId,
    endpoint: task.endpoint,
    model: task.model,
    display_name: task.displayName,
    counts: {
      total: task.total,
      pending: task.total - ended,
      succeeded: task.succeeded,
      failed: task.failed,
      canceled: task.canceled,
      expired: task.expired,
    },
    spent_usd: formatUsd(task.spent),
    created_at: iso(task.createdAt)!,
    started_at: iso(task.startedAt),
    finished_at: iso(task.finishedAt),
    expires_at: iso(task.expiresAt)!,
  }
}

function errorOf(item: ItemRecord): string | null {
  if (item.status !== 'errored' || item.result === null) return null
  try {
    return String((JSON.parse(item.result) as { message?: unknown }).message ?? 'failed')
  } catch {
    return 'failed'
  }
}

function itemJson(item: ItemRecord) {
  return {
    position: item.seq,
    custom_id: item.customId,
    status: item.status,
    status_code: item.statusCode,
    error: errorOf(item),
    cost_usd: formatUsd(item.cost),
    finished_at: iso(item.finishedAt),
  }
}

function readLimit(value: string | undefined, fallback: number, most: number): number {
  if (value === undefined) return fallback
  if (!/^\d{1,4}$/.test(value) || Number(value) < 1 || Number(value) > most) {
    throw invalidRequest(`Invalid value for 'limit': expected a whole number from 1 to ${most}.`, 'limit')
  }
  return Number(value)
}

function readCursor(value: string | undefined): { createdAt: number; id: string } | undefined {
  if (!value) return undefined
  const match = /^(\d{1,15})_([\w-]{1,100})$/.exec(value)
  if (!match) throw invalidRequest(`Invalid value for 'before': use the "next" value of the previous page.`, 'before')
  return { createdAt: Number(match[1]), id: match[2]! }
}

/**
 * Batches of every kind (OpenAI, Anthropic, Gemini) in one list: an account user's own account's, an admin's every
 * account's (merged newest first, like `tollgate task list`) or one account's.
 */
export function taskRoutes(services: Services) {
  const { tasks } = services
  return new Elysia({ name: 'console-tasks' })
    .use(signedIn(services))
    .get(
      '/console/api/tasks',
      async ({ viewer, query }) => {
        const limit = readLimit(query.limit, 50, 200)
        const olderThan = readCursor(query.before)
        const own = ownAccountId(viewer)
        const accountIds = query.account_id
          ? [(await visibleAccount(services, viewer, query.account_id)).id]
          : own !== undefined
            ? [own]
            : (await services.store.accounts.list()).map((account) => account.id)
        const pages = await Promise.all(
          accountIds.map((accountId) => tasks.repository.listTasks(accountId, { limit: limit + 1, olderThan })),
        )
        const rows = pages.flat().sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
        const page = rows.slice(0, limit)
        const last = page.at(-1)
        const names = seesEveryAccount(viewer) ? await accountNames(services.store.accounts) : new Map<number, string>()
        return {
          tasks: page.map((task) => taskJson(task, names.get(task.accountId) ?? null)),
          next: rows.length > limit && last ? `${last.createdAt}_${last.id}` : null,
        }
      },
      {
        permission: 'tasks:read',
        query: schema.tasksQuery,
        response: { 200: schema.taskPage, ...schema.errorResponses },
        detail: {
          tags,
          summary: 'Batches (tasks), newest first',
          description:
            "Every kind: OpenAI, Anthropic and Gemini batches. An account user sees only their own account's; pass `next` back as `before` for the next page.",
        },
      },
    )
    .get(
      '/console/api/tasks/:id',
      async ({ viewer, params }) => {
        const task = await visibleTask(services, viewer, params.id)
        const account = seesEveryAccount(viewer) ? ((await services.store.accounts.findById(task.accountId))?.name ?? null) : null
        return taskJson(task, account)
      },
      {
        permission: 'tasks:read',
        params: schema.idParams('task'),
        response: { 200: schema.task, ...schema.errorResponses },
        detail: { tags, summary: 'Show a task' },
      },
    )
    .get(
      '/console/api/tasks/:id/items',
      async ({ viewer, params, query }) => {
        const task = await visibleTask(services, viewer, params.id)
        const limit = readLimit(query.limit, 100, 500)
        if (query.after !== undefined && !/^\d{1,9}$/.test(query.after))
          throw invalidRequest(`Invalid value for 'after': use the "next" value of the previous page.`, 'after')
        const rows = await tasks.repository.items(task.id, query.after === undefined ? -1 : Number(query.after), limit + 1)
        const page = rows.slice(0, limit)
        return { items: page.map(itemJson), next: rows.length > limit ? String(page.at(-1)!.seq) : null }
      },
      {
        permission: 'tasks:read',
        params: schema.idParams('task'),
        query: schema.itemsQuery,
        response: { 200: schema.itemPage, ...schema.errorResponses },
        detail: { tags, summary: "A task's items and their status, in input order" },
      },
    )
    .get(
      '/console/api/tasks/:id/results',
      async ({ viewer, params }) => {
        const task = await visibleTask(services, viewer, params.id)
        if (!services.taskResults) throw notFound('Results are not available here.')
        const lines = services.taskResults(task)[Symbol.asyncIterator]()
        const encoder = new TextEncoder()
        const body = new ReadableStream<Uint8Array>({
          async pull(controller) {
            const next = await lines.next()
            if (next.done) controller.close()
            else controller.enqueue(encoder.encode(next.value + '\n'))
          },
        })
        return new Response(body, {
          headers: {
            'content-type': 'application/x-ndjson; charset=utf-8',
            'cache-control': 'no-store',
            'content-disposition': `attachment; filename="${task.id.replace(/[^\w.-]/g, '_')}_results.jsonl"`,
          },
        })
      },
      {
        permission: 'tasks:results',
        params: schema.idParams('task'),
        response: schema.errorResponses,
        detail: {
          tags,
          summary: "Download a task's results (JSONL)",
          description:
            "A file (application/x-ndjson, as an attachment) in the task's own API's shape: OpenAI batch output lines, Anthropic message batch result lines, or Gemini inlined responses. Items not yet ended are left out.",
        },
      },
    )
}
