import { Elysia, t } from 'elysia'
import { GatewayError, invalidRequest } from '../../core/errors.ts'
import type { Actor } from '../../domain/actor.ts'
import { accountNames } from '../../domain/accounts.ts'
import { auditEvent } from '../../domain/audit/note.ts'
import { userJson } from '../../domain/presenters.ts'
import type { UserRole } from '../../domain/records.ts'
import { belongsToAccount, grantableRoles } from '../../domain/roles.ts'
import { changePassword, createUser, deleteUser, listUsers } from '../../domain/users.ts'
import type { Services } from '../../edge/services.ts'
import * as schema from './schemas.ts'
import { ownAccountId, visibleAccount, visibleUser } from './scope.ts'
import type { SignInLimiter } from './sign-in-limiter.ts'
import { signedIn } from './signed-in.ts'

const tags = ['Logins']
const scoped = "An account-admin sees and manages its own account's logins only; any other login is a 404."

/** Nobody hands out more than they hold: an account-admin may make account-admins and viewers, never an admin. */
function requireGrantable(actor: Actor, role: UserRole): void {
  if (grantableRoles(actor.role).includes(role)) return
  throw new GatewayError('permission', `Your role (${actor.role}) may not create a login with the role ${role}.`, {
    code: 'not_permitted',
    param: 'role',
  })
}

/** Logins: an admin's of every account (and other admins), an account-admin's of its own account. */
export function userRoutes(services: Services, limiter: SignInLimiter) {
  const { store } = services
  const accountName = async (id: number | null) => (id === null ? undefined : (await store.accounts.findById(id))?.name)
  return new Elysia({ name: 'console-users' })
    .use(signedIn(services))
    .get(
      '/console/api/users',
      async ({ viewer, query }) => {
        const accountId = query.account_id ? (await visibleAccount(services, viewer, query.account_id)).id : ownAccountId(viewer)
        const [users, names] = await Promise.all([listUsers(store.users, accountId), accountNames(store.accounts)])
        return users.map((user) => userJson(user, user.accountId === null ? undefined : names.get(user.accountId)))
      },
      {
        permission: 'users:read',
        query: schema.accountQuery,
        response: { 200: t.Array(schema.user), ...schema.errorResponses },
        detail: { tags, summary: 'List logins', description: scoped },
      },
    )
    .post(
      '/console/api/users',
      async ({ viewer, actor, body, status }) => {
        const role = body.role ?? 'viewer'
        requireGrantable(actor, role)
        const accountId = body.account_id ?? ownAccountId(viewer)
        if (belongsToAccount(role) && (accountId === undefined || accountId === null))
          throw invalidRequest(`Missing 'account_id': a login with the role ${role} belongs to one account.`, 'account_id')
        const account = belongsToAccount(role) ? await visibleAccount(services, viewer, accountId) : undefined
        const result = await createUser(
          store,
          { name: body.name.trim(), role, accountId: account?.id, password: body.password || undefined },
          actor,
        )
        // A generated password is returned this once, like a key's secret.
        return status(201, { user: userJson(result.user, account?.name), password: result.generated ? result.password : undefined })
      },
      {
        permission: 'users:write',
        ...schema.jsonBody(schema.newUserBody),
        response: { 201: schema.createdUser, ...schema.errorResponses },
        detail: {
          tags,
          summary: 'Create a login',
          description: `Without a role, a viewer. Without a password, one is generated and returned once. ${scoped}`,
        },
      },
    )
    .delete(
      '/console/api/users/:id',
      async ({ viewer, actor, params }) => {
        const user = await visibleUser(services, viewer, params.id)
        if (user.id === viewer.user.id) throw invalidRequest('You cannot delete the login you are signed in with.')
        await deleteUser(store.users, user.name, actor)
        return { deleted: true as const, id: user.id }
      },
      {
        permission: 'users:write',
        params: schema.idParams('login'),
        response: { 200: schema.deletedUser, ...schema.errorResponses },
        detail: { tags, summary: 'Delete a login', description: `Its sessions end at once. ${scoped}` },
      },
    )
    .post(
      '/console/api/users/:id/password',
      async ({ viewer, actor, params, body }) => {
        const user = await visibleUser(services, viewer, params.id)
        if (user.id === viewer.user.id)
          throw invalidRequest('Change your own password with POST /console/api/session/password (it asks for the current one).')
        const result = await changePassword(store, user.name, body.password || undefined, actor)
        return { user: userJson(user, await accountName(user.accountId)), password: result.generated ? result.password : undefined }
      },
      {
        permission: 'users:write',
        params: schema.idParams('login'),
        ...schema.jsonBody(schema.passwordResetBody),
        response: { 200: schema.createdUser, ...schema.errorResponses },
        detail: {
          tags,
          summary: "Reset another login's password",
          description: `Without a password, one is generated and returned once. That login is signed out everywhere. ${scoped}`,
        },
      },
    )
    .post(
      '/console/api/users/:id/unlock',
      async ({ viewer, actor, params }) => {
        const user = await visibleUser(services, viewer, params.id)
        await limiter.clear(user.name)
        // The throttle's counts live in memory or Redis, not in the database: the row is written once they are cleared.
        await store.audit.record(
          auditEvent(actor, 'user.unlock', { type: 'user', id: String(user.id), accountId: user.accountId }, Date.now(), {
            sign_in: 'unlocked',
          }),
        )
        return { unlocked: true as const, name: user.name }
      },
      {
        permission: 'users:write',
        params: schema.idParams('login'),
        response: { 200: schema.unlocked, ...schema.errorResponses },
        detail: {
          tags,
          summary: 'Unlock a throttled sign-in',
          description: `${scoped} Forgets the login's failed sign-ins from every address (on every instance with Redis), so it may sign in at once.`,
        },
      },
    )
}
