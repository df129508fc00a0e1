import { Elysia, type Static } from 'elysia'
import { invalidRequest } from '../../core/errors.ts'
import { accountNames } from '../../domain/accounts.ts'
import { dayJson, groupJson, type KeyLabel, requestJson, totalsJson } from '../../domain/presenters.ts'
import type { UsageCursor, UsageDay, UsageFilter } from '../../domain/records.ts'
import { totalsByProject } from '../../domain/budgets/project-usage.ts'
import type { Services } from '../../edge/services.ts'
import * as schema from './schemas.ts'
import { ownAccountId, seesEveryAccount } from './scope.ts'
import { signedIn } from './signed-in.ts'
import { readUsageFilter } from './usage-filter.ts'
import { requestCsv } from './request-csv.ts'

const dayMs = 86_400_000
const defaultDays = 30
const longestRangeDays = 400
const tags = ['Usage']

/** A usage read's route options: who may call it (usage:read), its query and answers, its documentation. */
const usageRead = <Query, Response>(query: Query, response: Response, summary: string, description: string) => ({
  permission: 'usage:read' as const,
  query,
  response,
  detail: { tags, summary, description },
})

/** Chart ranges are whole UTC days; the default is the last 30 including today. */
function dayRange(filter: UsageFilter, now = Date.now()): { since: number; until: number } {
  const until = filter.until ?? (Math.floor(now / dayMs) + 1) * dayMs
  const since = filter.since ?? until - defaultDays * dayMs
  if (until - since > longestRangeDays * dayMs) throw invalidRequest(`The range may span at most ${longestRangeDays} days.`, 'since')
  return { since, until }
}

/** Days without requests are absent from the store; a chart needs them as zeros. */
function fillDays(days: UsageDay[], since: number, until: number): UsageDay[] {
  const byDay = new Map(days.map((day) => [day.day, day]))
  const filled: UsageDay[] = []
  for (let day = Math.floor(since / dayMs) * dayMs; day < until; day += dayMs) {
    filled.push(byDay.get(day) ?? { day, requests: 0, succeeded: 0, refused: 0, failed: 0, inputTokens: 0, outputTokens: 0, spent: 0 })
  }
  return filled
}

/** A keyset cursor `TIME_ID` (the request log's and the audit log's `next`), or a 400. */
export function parseCursor(value: string | undefined): UsageCursor | undefined {
  if (!value) return undefined
  const match = /^(\d{1,15})_(\d{1,15})$/.exec(value)
  if (!match) throw invalidRequest(`Invalid value for 'before': use the "next" value of the previous page.`, 'before')
  return { createdAt: Number(match[1]), id: Number(match[2]) }
}

/** Rows per page of a keyset list: 1 to 200, 50 when absent. */
export function readLimit(value: string | undefined): number {
  if (value === undefined) return 50
  if (!/^\d{1,3}$/.test(value) || Number(value) < 1 || Number(value) > 200) {
    throw invalidRequest(`Invalid value for 'limit': expected a whole number from 1 to 200.`, 'limit')
  }
  return Number(value)
}

/**
 * A model row's label: a refusal written before the body's model was read has none, and a model the client typed
 * that is not configured is marked, so neither reads as a model that was served.
 */
function modelLabel(services: Services, id: string): string {
  if (id === '') return 'refused before the model was read'
  return services.config.models.some((model) => model.id === id) ? id : `${id} (not configured)`
}

async function keyLabels(services: Services, ids: Iterable<string>): Promise<Map<string, KeyLabel>> {
  const keys = await Promise.all([...new Set(ids)].map((id) => services.store.keys.findById(id)))
  return new Map(keys.filter((key) => key !== undefined).map((key) => [key.id, { name: key.name, prefix: key.prefix }]))
}

/**
 * Totals, a daily series and breakdowns for one range: what the overview, usage and key pages chart, and the admin
 * API's usage. `everyAccount`: the caller sees every account, so an unfiltered report also breaks down by account.
 */
export async function usageReport(services: Services, requested: UsageFilter, everyAccount: boolean) {
  const { usage } = services.store
  const filter = { ...requested, ...dayRange(requested) }
  const [totals, days, byModel, byOperation, byKey] = await Promise.all([
    usage.summarize(filter),
    usage.dailyTotals(filter),
    usage.totalsBy('model', filter),
    usage.totalsBy('operation', filter),
    usage.totalsBy('keyId', filter),
  ])
  const systemWide = everyAccount && filter.accountId === undefined && filter.keyId === undefined
  const byAccount = systemWide ? await usage.totalsBy('accountId', filter) : []
  const names = systemWide ? await accountNames(services.store.accounts) : new Map<number, string>()
  const keys = await keyLabels(
    services,
    byKey.map((group) => group.group),
  )
  const byProject = await totalsByProject(services.store, filter)
  return {
    since: new Date(filter.since).toISOString(),
    until: new Date(filter.until).toISOString(),
    totals: totalsJson(totals),
    daily: fillDays(days, filter.since, filter.until).map(dayJson),
    by_model: byModel.map((group) => groupJson(group, modelLabel(services, group.group))),
    by_operation: byOperation.map((group) => groupJson(group)),
    by_key: byKey.map((group) => groupJson(group, keys.get(group.group)?.name ?? keys.get(group.group)?.prefix)),
    by_project: byProject.map(({ group, project }) => groupJson(group, project.name)),
    by_account: systemWide ? byAccount.map((group) => groupJson(group, names.get(Number(group.group)))) : undefined,
  }
}

/** One keyset page of the request log, newest first; `next` goes back as `before`. */
export async function requestLogPage(
  services: Services,
  filter: UsageFilter,
  query: Static<typeof schema.requestsQuery>,
  withAccountNames: boolean,
) {
  const limit = readLimit(query.limit)
  const rows = await services.store.usage.listRequests(filter, limit + 1, parseCursor(query.before))
  const page = rows.slice(0, limit)
  const last = page.at(-1)
  const keys = await keyLabels(
    services,
    page.map((row) => row.keyId),
  )
  const names = withAccountNames ? await accountNames(services.store.accounts) : new Map<number, string>()
  return {
    requests: page.map((row) => requestJson(row, keys.get(row.keyId), names.get(row.accountId))),
    next: rows.length > limit && last ? `${last.createdAt}_${last.id}` : null,
  }
}

export function usageRoutes(services: Services) {
  return (
    new Elysia({ name: 'console-usage' })
      .use(signedIn(services))
      // Totals, a daily series and breakdowns for one range: what the overview, usage and key pages chart.
      .get(
        '/console/api/usage',
        async ({ viewer, query }) => {
          const filter = await readUsageFilter(services, ownAccountId(viewer), query)
          return usageReport(services, filter, seesEveryAccount(viewer))
        },
        usageRead(
          schema.usageQuery,
          { 200: schema.usage, ...schema.errorResponses },
          'Usage totals, a daily series and breakdowns',
          'Whole UTC days, the last 30 by default, at most 400. An account user sees only their own account.',
        ),
      )
      // The request log, newest first, one keyset page at a time: `next` goes back as `before`.
      .get(
        '/console/api/requests',
        async ({ viewer, query }) => {
          const filter = await readUsageFilter(services, ownAccountId(viewer), query)
          return requestLogPage(services, filter, query, seesEveryAccount(viewer))
        },
        usageRead(
          schema.requestsQuery,
          { 200: schema.requestPage, ...schema.errorResponses },
          'The request log, newest first',
          'One keyset page at a time: pass `next` back as `before`.',
        ),
      )
      .get(
        '/console/api/requests/csv',
        async ({ viewer, query }) => {
          const filter = await readUsageFilter(services, ownAccountId(viewer), query)
          const day = new Date().toISOString().slice(0, 10)
          return new Response(requestCsv(services, filter, seesEveryAccount(viewer)), {
            headers: {
              'content-type': 'text/csv; charset=utf-8',
              'cache-control': 'no-store',
              'content-disposition': `attachment; filename="tollgate-requests-${day}.csv"`,
            },
          })
        },
        usageRead(
          schema.usageQuery,
          schema.errorResponses,
          'The request log as CSV',
          "A file (text/csv, as an attachment): every request matching the filters (the same as the request log's), newest first, with a header row. Money is an exact decimal string.",
        ),
      )
  )
}
