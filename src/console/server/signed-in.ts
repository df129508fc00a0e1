import { Elysia } from 'elysia'
import type { Services } from '../../edge/services.ts'
import { deferConsoleBody, readConsoleBody } from './body.ts'
import { jsonHeaders, notFound, securityHeaders } from './respond.ts'
import { isAdmin } from './scope.ts'
import { checkCsrf, checkSameOrigin, resolveViewer } from './viewer.ts'

const changesState = (request: Request) => request.method !== 'GET' && request.method !== 'HEAD'

/**
 * The console API's gate, used by each group of signed-in routes: the session cookie (never an API key) gives
 * the `viewer`; every state change must come from the console's own origin and echo the session's CSRF token;
 * with `admin`, an account user gets the 404 a missing route gets, so admin routes are invisible to them.
 *
 * A `derive` rather than a `resolve` because Elysia validates between the two: these checks answer before a
 * body is read at all (body.ts), so a signed-out or foreign request learns nothing from a validation message and
 * cannot make the gateway hold its body. Not named, so Elysia never deduplicates it away from a group that uses it.
 */
export function signedIn(services: Services, options: { admin?: boolean } = {}) {
  return new Elysia()
    .onParse({ as: 'scoped' }, deferConsoleBody)
    .derive({ as: 'scoped' }, async (context) => {
      const { request, set } = context
      Object.assign(set.headers, securityHeaders, jsonHeaders)
      const viewer = await resolveViewer(services, request)
      if (changesState(request)) {
        checkSameOrigin(request)
        checkCsrf(viewer, request)
      }
      if (options.admin && !isAdmin(viewer)) throw notFound()
      await readConsoleBody(context, services.config.limits.bodyTimeoutMs)
      return { viewer }
    })
}
