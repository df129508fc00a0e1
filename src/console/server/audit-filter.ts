import type { Static } from 'elysia'
import { invalidRequest } from '../../core/errors.ts'
import type { AuditFilter } from '../../domain/audit/records.ts'
import type { Services } from '../../edge/services.ts'
import type { auditQuery } from './audit-schemas.ts'
import { findAccount } from './scope.ts'
import { readTime } from './usage-filter.ts'

const longestText = 200

function readText(value: string | undefined, field: string): string | undefined {
  const text = value?.trim()
  if (!text) return undefined
  if (text.length > longestText) throw invalidRequest(`Invalid value for '${field}': at most ${longestText} characters.`, field)
  return text
}

/**
 * The audit filter a caller asked for, narrowed to what it may see: with `own` (an account admin's account) only that
 * account's rows, and naming another account is a 404.
 */
export async function readAuditFilter(services: Services, own: number | undefined, query: Static<typeof auditQuery>): Promise<AuditFilter> {
  const filter: AuditFilter = { accountId: own }
  if (query.account_id) filter.accountId = (await findAccount(services, own, query.account_id)).id
  filter.actor = readText(query.actor, 'actor')
  filter.objectType = readText(query.object_type, 'object_type')
  filter.objectId = readText(query.object_id, 'object_id')
  filter.action = readText(query.action, 'action')
  filter.since = readTime(query.since, 'since')
  filter.until = readTime(query.until, 'until')
  if (filter.since !== undefined && filter.until !== undefined && filter.since >= filter.until) {
    throw invalidRequest(`Invalid value for 'until': it must be later than 'since'.`, 'until')
  }
  return filter
}
