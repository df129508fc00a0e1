import { Elysia } from 'elysia'
import type { Services } from '../../edge/services.ts'
import { adminAccountRoutes } from './account-routes.ts'
import { adminAuditRoutes } from './audit-routes.ts'
import { adminKeyRoutes } from './key-routes.ts'
import { budgetRoutes } from '../server/budget-routes.ts'
import { adminUsageRoutes } from './usage-routes.ts'
import { adminWebhookRoutes } from './webhook-routes.ts'

/**
 * The admin API under /admin/api: what the CLI and the console do, for automation, authenticated by admin tokens
 * (`tollgate admin-token create`). It calls the same domain services and answers in the console API's shapes and
 * error format; only the credential differs.
 */
export function adminApiRoutes(services: Services) {
  return new Elysia({ name: 'admin-api' })
    .use(adminAccountRoutes(services))
    .use(adminKeyRoutes(services))
    .use(budgetRoutes(services, 'admin'))
    .use(adminUsageRoutes(services))
    .use(adminAuditRoutes(services))
    .use(adminWebhookRoutes(services))
}
