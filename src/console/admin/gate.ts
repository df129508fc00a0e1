import { Elysia } from 'elysia'
import type { Services } from '../../edge/services.ts'
import { requireAdminToken } from '../../edge/admin-auth.ts'
import { deferConsoleBody, readConsoleBody } from '../server/body.ts'
import { jsonHeaders } from '../server/respond.ts'

const changesState = (request: Request) => request.method !== 'GET' && request.method !== 'HEAD'

/**
 * The admin API's gate, used by each group of its routes: an admin token (`Authorization: Bearer tga-…`) gives
 * the `token`; a change needs scope "full". A `derive`, like the console's signedIn, so the token and its scope
 * are checked before the body is read (body.ts): a stranger or a read-only token learns nothing from a validation
 * message, and cannot make the gateway hold its body.
 * No CSRF check: a browser never attaches a bearer token by itself. Not named, so Elysia never deduplicates it.
 */
export function withAdminToken(services: Services) {
  return new Elysia()
    .onParse({ as: 'scoped' }, deferConsoleBody)
    .derive({ as: 'scoped' }, async (context) => {
      const { request, set } = context
      Object.assign(set.headers, jsonHeaders)
      const token = await requireAdminToken(services, request, changesState(request) ? 'full' : 'read')
      await readConsoleBody(context, services.config.limits.bodyTimeoutMs)
      return { token }
    })
}

/** The actor a ledger entry names for a change made through the admin API. */
export const actorOf = (token: { name: string }) => `admin-token:${token.name}`

/** Every admin API route's documentation: its tag and the bearer scheme (docs.ts defines `adminToken`). */
export const adminDetail = (summary: string, description?: string) => ({
  tags: ['Admin API'], summary, description, security: [{ adminToken: [] }],
})
