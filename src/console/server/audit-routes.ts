import { Elysia, type Static } from 'elysia'
import { auditJson } from '../../domain/audit/present.ts'
import type { AuditFilter } from '../../domain/audit/records.ts'
import type { Services } from '../../edge/services.ts'
import { auditCsv } from './audit-csv.ts'
import { readAuditFilter } from './audit-filter.ts'
import * as schema from './audit-schemas.ts'
import { errorResponses } from './schemas.ts'
import { ownAccountId } from './scope.ts'
import { signedIn } from './signed-in.ts'
import { parseCursor, readLimit } from './usage-routes.ts'

const tags = ['Audit log']
export const auditDescription =
  'Every change (accounts, credits and debits, keys, logins, admin tokens, sign-ins and failed ones, ' +
  'config reloads, batch cancellations): when, who, from which address, what, and the changed fields before and after — ' +
  "never a secret. An account admin reads its own account's rows."

/** One keyset page of the audit log, newest first; `next` goes back as `before`. The admin API's too. */
export async function auditLogPage(services: Services, filter: AuditFilter, query: Static<typeof schema.auditPageQuery>) {
  const limit = readLimit(query.limit)
  const cursor = parseCursor(query.before)
  const rows = await services.store.audit.list(filter, limit + 1, cursor && { at: cursor.createdAt, id: cursor.id })
  const page = rows.slice(0, limit)
  const last = page.at(-1)
  return { entries: page.map(auditJson), next: rows.length > limit && last ? `${last.at}_${last.id}` : null }
}

/** The audit log in the console: a page at a time, and the same rows as a CSV file. */
export function auditRoutes(services: Services) {
  return new Elysia({ name: 'console-audit' })
    .use(signedIn(services))
    .get(
      '/console/api/audit',
      async ({ viewer, query }) => auditLogPage(services, await readAuditFilter(services, ownAccountId(viewer), query), query),
      {
        permission: 'audit:read',
        query: schema.auditPageQuery,
        response: { 200: schema.auditPage, ...errorResponses },
        detail: {
          tags,
          summary: 'The audit log, newest first',
          description: `${auditDescription} One keyset page at a time: pass \`next\` back as \`before\`.`,
        },
      },
    )
    .get(
      '/console/api/audit/csv',
      async ({ viewer, query }) => {
        const filter = await readAuditFilter(services, ownAccountId(viewer), query)
        const day = new Date().toISOString().slice(0, 10)
        return new Response(auditCsv(services, filter), {
          headers: {
            'content-type': 'text/csv; charset=utf-8',
            'cache-control': 'no-store',
            'content-disposition': `attachment; filename="tollgate-audit-${day}.csv"`,
          },
        })
      },
      {
        permission: 'audit:read',
        query: schema.auditQuery,
        response: errorResponses,
        detail: {
          tags,
          summary: 'The audit log as CSV',
          description:
            'A file (text/csv, as an attachment): every row matching the filters, newest first, with a header row; ' +
            'the fields before and after as one JSON cell each. A cell a spreadsheet would run as a formula starts with a quote mark.',
        },
      },
    )
}
