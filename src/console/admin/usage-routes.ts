import { Elysia } from 'elysia'
import type { Services } from '../../edge/services.ts'
import * as schema from '../server/schemas.ts'
import { readUsageFilter } from '../server/usage-filter.ts'
import { ownAccountId, seesEveryAccount } from '../server/scope.ts'
import { requestLogPage, usageReport } from '../server/usage-routes.ts'
import { adminDetail, withAdminToken } from './gate.ts'

/** Usage as the console's admins see it, with the same filters: every account unless one is named. */
export function adminUsageRoutes(services: Services) {
  return new Elysia({ name: 'admin-api-usage' })
    .use(withAdminToken(services))
    .get(
      '/admin/api/usage',
      async ({ actor, query }) =>
        usageReport(services, await readUsageFilter(services, ownAccountId({ actor }), query), seesEveryAccount({ actor })),
      {
        permission: 'usage:read',
        query: schema.usageQuery,
        response: { 200: schema.usage, ...schema.errorResponses },
        detail: adminDetail('Usage totals, a daily series and breakdowns', 'Whole UTC days, the last 30 by default, at most 400.'),
      },
    )
    .get(
      '/admin/api/requests',
      async ({ actor, query }) =>
        requestLogPage(services, await readUsageFilter(services, ownAccountId({ actor }), query), query, seesEveryAccount({ actor })),
      {
        permission: 'usage:read',
        query: schema.requestsQuery,
        response: { 200: schema.requestPage, ...schema.errorResponses },
        detail: adminDetail('The request log, newest first', 'One keyset page at a time: pass `next` back as `before`.'),
      },
    )
}
