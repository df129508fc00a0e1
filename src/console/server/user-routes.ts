import { Elysia, t } from 'elysia'
import { invalidRequest } from '../../core/errors.ts'
import { accountNames } from '../../domain/accounts.ts'
import { userJson } from '../../domain/presenters.ts'
import { createUser, deleteUser, listUsers } from '../../domain/users.ts'
import type { Services } from '../../edge/services.ts'
import { notFound } from './respond.ts'
import * as schema from './schemas.ts'
import { visibleAccount } from './scope.ts'
import { signedIn } from './signed-in.ts'

const tags = ['Logins']
const adminsOnly = 'Admins only; to an account user this route does not exist (404).'

/** Logins are an operator's business: every route here is admin-only (and a 404 to anyone else). */
export function userRoutes(services: Services) {
  const { store } = services
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
      const user = /^\d{1,15}$/.test(params.id) ? await store.users.findById(Number(params.id)) : undefined
      if (!user) throw notFound('No such user.')
      if (user.id === viewer.user.id) throw invalidRequest('You cannot delete the login you are signed in with.')
      await deleteUser(store.users, user.name)
      return { deleted: true as const, id: user.id }
    }, {
      params: schema.idParams('login'),
      response: { 200: schema.deletedUser, ...schema.errorResponses },
      detail: { tags, summary: 'Delete a login', description: `${adminsOnly} Its sessions end at once.` },
    })
}
