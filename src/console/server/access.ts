import { Elysia } from 'elysia'
import { GatewayError } from '../../core/errors.ts'
import type { Actor } from '../../domain/actor.ts'
import { allows, type Permission, rolesAllowed } from '../../domain/roles.ts'
import type { Services } from '../../edge/services.ts'
import { deferConsoleBody, readConsoleBody } from './body.ts'

/** Set by a route's `permission` once it is checked; a route that never declared one is refused (`requireDeclared`). */
export interface Access {
  permission: Permission | undefined
}

/**
 * The one place a role meets a permission. A refusal is a 403 that names what was missing; it comes before any
 * object is looked up, so it says nothing about whether the object exists (another account's object is a 404, scope.ts).
 */
function requirePermission(actor: Actor, permission: Permission): void {
  if (allows(actor.role, permission)) return
  if (actor.kind === 'admin-token') {
    throw new GatewayError('permission', 'This admin token is read-only; changes need a token with scope "full".', {
      code: 'read_only_token',
    })
  }
  throw new GatewayError(
    'permission',
    `Your role (${actor.role}) may not do this: it needs the permission "${permission}", which ${rolesAllowed(permission).join(' and ')} have.`,
    {
      code: 'not_permitted',
    },
  )
}

function requireDeclared(access: Access): void {
  // A route added without a `permission` would otherwise be open to every role: it is closed to all of them instead.
  if (access.permission === undefined)
    throw new GatewayError('permission', 'This route declares no permission, so nobody may use it.', { code: 'no_permission_declared' })
}

/** What each route's documentation says about who may call it (shown at /docs, read by test/role-matrix.test.ts). */
function permissionDetail(permission: Permission) {
  return { 'x-permission': permission, 'x-roles': rolesAllowed(permission) } as Record<string, unknown>
}

/**
 * The gate of the console API and the admin API, used by each group of their routes. `authenticate` finds who is
 * asking from the request alone (a session cookie, an admin token) and returns at least the `actor`; each route then
 * declares what it needs, `{ permission: 'keys:write' }`, and that is checked here, before the body is read: a
 * stranger or a role without the permission learns nothing from a validation message and cannot make the gateway
 * hold its body. The body is read only after both checks (body.ts).
 *
 * `derive` and the macro's `transform` rather than `resolve`, because Elysia validates between them. Not named, so
 * Elysia never deduplicates it away from a group that uses it.
 */
export function gate<Found extends { actor: Actor }>(
  services: Services,
  headers: Record<string, string>,
  authenticate: (request: Request) => Promise<Found>,
) {
  return new Elysia()
    .onParse({ as: 'scoped' }, deferConsoleBody)
    .derive({ as: 'scoped' }, async ({ request, set }) => {
      Object.assign(set.headers, headers)
      const found = await authenticate(request)
      return { ...found, access: { permission: undefined } as Access }
    })
    .macro({
      permission: (permission: Permission) => ({
        async transform(context) {
          const { actor, access } = context as unknown as { actor: Actor; access: Access }
          requirePermission(actor, permission)
          access.permission = permission
          await readConsoleBody(context, services.config.limits.bodyTimeoutMs)
        },
        detail: permissionDetail(permission),
      }),
    })
    .onBeforeHandle({ as: 'scoped' }, (context) => requireDeclared((context as unknown as { access: Access }).access))
}
