import { Elysia } from 'elysia'
import type { Services } from '../edge/services.ts'
import { accountRoutes } from './server/account-routes.ts'
import { budgetRoutes } from './server/budget-routes.ts'
import { keyRoutes } from './server/key-routes.ts'
import { modelRoutes } from './server/model-routes.ts'
import { oidcRoutes } from './server/oidc/routes.ts'
import { pageRoutes } from './server/pages.ts'
import { closeIfBodyUnread } from './server/body.ts'
import { consoleErrorResponse } from './server/respond.ts'
import { sessionRoutes } from './server/session-routes.ts'
import { taskRoutes } from './server/task-routes.ts'
import { SignInLimiter } from './server/sign-in-limiter.ts'
import { usageRoutes } from './server/usage-routes.ts'
import { userRoutes } from './server/user-routes.ts'
import { auditRoutes } from './server/audit-routes.ts'
import { webhookRoutes } from './server/webhook-routes.ts'

export { adminApiRoutes } from './admin/index.ts'
export { apiDocs } from './server/docs.ts'

/**
 * The web console: pages and embedded assets under /console, JSON under /console/api, signed in with a session
 * cookie. It calls the same domain services as the CLI (accounts, keys, users, usage), never its own copies.
 */
export function consoleRoutes(services: Services) {
  // One throttle for signing in, checking a current password and an admin's unlock.
  const limiter = new SignInLimiter(services.signInFailures)
  return new Elysia({ name: 'console' })
    .use(sessionRoutes(services, limiter))
    .use(oidcRoutes(services))
    .use(accountRoutes(services))
    .use(keyRoutes(services))
    .use(budgetRoutes(services, 'console'))
    .use(usageRoutes(services))
    .use(userRoutes(services, limiter))
    .use(modelRoutes(services))
    .use(taskRoutes(services))
    .use(auditRoutes(services))
    .use(webhookRoutes(services))
    .use(pageRoutes(services))
}

/**
 * The console's answer to an error on one of its API routes or the admin API's (a schema failure included), or
 * undefined for any other request. The app's onError asks first: Elysia runs the app's error hook before a plugin's own.
 */
export function consoleError(services: Services, request: Request, error: unknown): Response | undefined {
  const path = request.url.slice(request.url.indexOf('/', request.url.indexOf('//') + 2))
  if (!path.startsWith('/console/api/') && !path.startsWith('/admin/api/')) return undefined
  return closeIfBodyUnread(request, consoleErrorResponse(error, services.logger))
}
