import { invalidRequest } from '../../core/errors.ts'
import type { UsageFilter } from '../../domain/records.ts'
import type { Services } from '../../edge/services.ts'
import { ownAccountId, visibleAccount, visibleKey } from './scope.ts'
import type { Viewer } from './viewer.ts'

const statusRanges: Record<string, [number, number]> = {
  ok: [100, 399], error: [400, 599], '2xx': [200, 299], '4xx': [400, 499], '5xx': [500, 599],
}

function readStatus(value: string): [number, number] {
  const range = statusRanges[value]
  if (range) return range
  if (/^[1-5]\d\d$/.test(value)) return [Number(value), Number(value)]
  throw invalidRequest(`Invalid value for 'status': use ok, error, 2xx, 4xx, 5xx or a status code such as 429; got "${value}".`, 'status')
}

export function readTime(query: URLSearchParams, field: string): number | undefined {
  const value = query.get(field)
  if (value === null || value === '') return undefined
  const time = Date.parse(value)
  if (Number.isNaN(time)) throw invalidRequest(`Invalid value for '${field}': expected an ISO-8601 time such as 2026-01-31T00:00:00Z.`, field)
  return time
}

/**
 * The usage filter a viewer asked for, narrowed to what they may see: an account user's filter is always
 * their own account, and naming another account or another account's key is a 404.
 */
export async function readUsageFilter(services: Services, viewer: Viewer, query: URLSearchParams): Promise<UsageFilter> {
  const filter: UsageFilter = { accountId: ownAccountId(viewer) }
  const accountId = query.get('account_id')
  if (accountId) filter.accountId = (await visibleAccount(services, viewer, accountId)).id
  const keyId = query.get('key_id')
  if (keyId) filter.keyId = (await visibleKey(services, viewer, keyId)).id
  const model = query.get('model')
  if (model) filter.model = model
  const status = query.get('status')
  if (status) [filter.statusMin, filter.statusMax] = readStatus(status)
  filter.since = readTime(query, 'since')
  filter.until = readTime(query, 'until')
  if (filter.since !== undefined && filter.until !== undefined && filter.since >= filter.until) {
    throw invalidRequest(`Invalid value for 'until': it must be later than 'since'.`, 'until')
  }
  return filter
}
