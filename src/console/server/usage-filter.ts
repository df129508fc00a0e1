import type { Static } from 'elysia'
import { invalidRequest } from '../../core/errors.ts'
import type { UsageFilter } from '../../domain/records.ts'
import type { Services } from '../../edge/services.ts'
import type { usageQuery } from './schemas.ts'
import { findAccount, findKey, findProject } from './scope.ts'
import { projectKeyIds } from '../../domain/budgets/project-usage.ts'

const statusRanges: Record<string, [number, number]> = {
  ok: [100, 399],
  error: [400, 599],
  '2xx': [200, 299],
  '4xx': [400, 499],
  '5xx': [500, 599],
}

function readStatus(value: string): [number, number] {
  const range = statusRanges[value]
  if (range) return range
  if (/^[1-5]\d\d$/.test(value)) return [Number(value), Number(value)]
  throw invalidRequest(`Invalid value for 'status': use ok, error, 2xx, 4xx, 5xx or a status code such as 429; got "${value}".`, 'status')
}

export function readTime(value: string | undefined, field: string): number | undefined {
  if (value === undefined || value === '') return undefined
  const time = Date.parse(value)
  if (Number.isNaN(time))
    throw invalidRequest(`Invalid value for '${field}': expected an ISO-8601 time such as 2026-01-31T00:00:00Z.`, field)
  return time
}

/**
 * The usage filter a caller asked for, narrowed to what they may see: with `own` (an account user's account) the
 * filter is always that account, and naming another account or another account's key is a 404.
 */
export async function readUsageFilter(services: Services, own: number | undefined, query: Static<typeof usageQuery>): Promise<UsageFilter> {
  const filter: UsageFilter = { accountId: own }
  if (query.account_id) filter.accountId = (await findAccount(services, own, query.account_id)).id
  if (query.key_id) filter.keyId = (await findKey(services, own, query.key_id)).id
  if (query.project_id) filter.keyIds = await projectKeyIds(services.store, await findProject(services, own, query.project_id))
  if (query.model) filter.model = query.model
  if (query.status) [filter.statusMin, filter.statusMax] = readStatus(query.status)
  filter.since = readTime(query.since, 'since')
  filter.until = readTime(query.until, 'until')
  if (filter.since !== undefined && filter.until !== undefined && filter.since >= filter.until) {
    throw invalidRequest(`Invalid value for 'until': it must be later than 'since'.`, 'until')
  }
  return filter
}
