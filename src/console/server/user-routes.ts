import { Elysia, t } from 'elysia'
import { invalidRequest } from '../../core/errors.ts'
import { accountNames } from '../../domain/accounts.ts'
import { userJson } from '../../domain/presenters.ts'
import { changePassword, createUser, deleteUser, listUsers } from '../../domain/users.ts'
import type { Services } from '../../edge/services.ts'
import { notFound } from './respond.ts'
import * as schema from './schemas.ts'
import { visibleAccount } from './scope.ts'
import type { SignInLimiter } from './sign-in-limiter.ts'
import { signedIn } from './signed-in.ts'

const tags = ['Logins']
const adminsOnly = 'Admins only; to an account user this route does not exist (404).'

/** Logins are an operator's business: every route here is admin-only (and a 404 to anyone else). */
export function userRoutes(services: Services, limiter: SignInLimiter) {
  const { store } = services
  const findUser = async (id: string) => {
    const user = /^\d{1,15}$/.test(id) ? await store.users.findById(Number(id)) : undefined
    if (!user) throw notFound('No such user.')
    return user
  }
  const accountName = async (id: number | null) => (id === null ? undefined : (await store.accounts.findById(id))?.name)
  return new Elysia({ name: 'console-users' })
    .use(signedIn(services, { admin: true }))
    .get('/console/api/users', async ({ viewer, query }) => {
      const accountId = query.account_id ? (await visibleAccount(services, viewer, query.account_id)).id : undefined
      const [users, names] = await Promise.all([listUsers(store.users, accountId), accountNames(store.accounts)])
      return users.map((user) => userJson(user, user.accountId === null ? undefined : names.get(user.accountId)))
    }, {
      query: schema.accountQuery,
      response: { 200: t.Array(schema.user), ...schema.errorResponses },
      detail: { tags, summary: 'List logins', description: adminsOnly },
    })
    .post('/console/api/users', async ({ viewer, body, status }) => {
      const account = body.role === 'account' ? await visibleAccount(services, viewer, body.account_id) : undefined
      const result = await createUser(store, { name: body.name.trim(), role: body.role, accountId: account?.id, password: body.password || undefined })
      // A generated password is returned this once, like a key's secret.
      return status(201, { user: userJson(result.user, account?.name), password: result.generated ? result.password : undefined })
    }, {
      ...schema.jsonBody(schema.newUserBody),
      response: { 201: schema.createdUser, ...schema.errorResponses },
      detail: { tags, summary: 'Create a login', description: `${adminsOnly} Without a password, one is generated and returned once.` },
    })
    .delete('/console/api/users/:id', async ({ viewer, params }) => {
      const user = await findUser(params.id)
      if (user.id === viewer.user.id) throw invalidRequest('You cannot delete the login you are signed in with.')
      await deleteUser(store.users, user.name)
      return { deleted: true as const, id: user.id }
    }, {
      params: schema.idParams('login'),
      response: { 200: schema.deletedUser, ...schema.errorResponses },
      detail: { tags, summary: 'Delete a login', description: `${adminsOnly} Its sessions end at once.` },
    })
    .post('/console/api/users/:id/password', async ({ viewer, params, body }) => {
      const user = await findUser(params.id)
      if (user.id === viewer.user.id) throw invalidRequest('Change your own password with POST /console/api/session/password (it asks for the current one).')
      const result = await changePassword(store, user.name, body.password || undefined)
      return { user: userJson(user, await accountName(user.accountId)), password: result.generated ? result.password : undefined }
    }, {
      params: schema.idParams('login'),
      ...schema.jsonBody(schema.passwordResetBody),
      response: { 200: schema.createdUser, ...schema.errorResponses },
      detail: {
        tags, summary: "Reset another login's password",
        description: `${adminsOnly} Without a password, one is generated and returned once. That login is signed out everywhere.`,
      },
    })
    .post('/console/api/users/:id/unlock', async ({ params }) => {
      const user = await findUser(params.id)
      await limiter.clear(user.name)
      return { unlocked: true as const, name: user.name }
    }, {
      params: schema.idParams('login'),
      response: { 200: schema.unlocked, ...schema.errorResponses },
      detail: {
        tags, summary: 'Unlock a throttled sign-in',
        description: `${adminsOnly} Forgets the login's failed sign-ins from every address (on every instance with Redis), so it may sign in at once.`,
      },
    })
}
