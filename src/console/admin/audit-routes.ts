import { Elysia } from 'elysia'
import type { Services } from '../../edge/services.ts'
import { auditDescription, auditLogPage } from '../server/audit-routes.ts'
import { readAuditFilter } from '../server/audit-filter.ts'
import * as schema from '../server/audit-schemas.ts'
import { errorResponses } from '../server/schemas.ts'
import { adminDetail, withAdminToken } from './gate.ts'

/** The audit log through the admin API: the console's filters and pages, for a SIEM or a script. Needs a `full` token. */
export function adminAuditRoutes(services: Services) {
  return new Elysia({ name: 'admin-api-audit' })
    .use(withAdminToken(services))
    .get('/admin/api/audit', async ({ query }) => auditLogPage(services, await readAuditFilter(services, undefined, query), query), {
      permission: 'audit:read',
      query: schema.auditPageQuery,
      response: { 200: schema.auditPage, ...errorResponses },
      detail: adminDetail(
        'The audit log, newest first',
        `${auditDescription} One keyset page at a time: pass \`next\` back as \`before\`. Needs a token with scope "full".`,
      ),
    })
}
