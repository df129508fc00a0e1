import { Elysia } from 'elysia'
import { invalidRequest } from '../../core/errors.ts'
import { createUser, deleteUser } from '../../domain/users.ts'
import { optionalString, requireString } from '../../protocols/shared/validate.ts'
import type { Services } from '../../edge/services.ts'
import { userJson } from '../../domain/presenters.ts'
import { consoleJson, notFound } from './respond.ts'
import { consoleRoute } from './route.ts'
import { visibleAccount } from './scope.ts'

/** Logins are an operator's business: every route here is admin-only (and a 404 to anyone else). */
export function userRoutes(services: Services) {
  const { store } = services
  const names = async () => new Map((await store.accounts.list()).map((account) => [account.id, account.name]))
  return new Elysia({ name: 'console-users' })
    .get('/console/api/users', consoleRoute(services, async ({ viewer, query }) => {
      const accountId = query.get('account_id') ? (await visibleAccount(services, viewer, query.get('account_id'))).id : undefined
      const accountNames = await names()
      return (await store.users.list())
        .filter((user) => accountId === undefined || user.accountId === accountId)
        .map((user) => userJson(user, user.accountId === null ? undefined : accountNames.get(user.accountId)))
    }, { admin: true }))
    .post('/console/api/users', consoleRoute(services, async ({ viewer, body }) => {
      const role = requireString(body.role, 'role')
      if (role !== 'admin' && role !== 'account') throw invalidRequest(`Invalid value for 'role': "admin" or "account".`, 'role')
      const account = role === 'account' ? await visibleAccount(services, viewer, body.account_id) : undefined
      const password = optionalString(body.password, 'password') || undefined
      const result = await createUser(store, { name: requireString(body.name, 'name').trim(), role, accountId: account?.id, password })
      // A generated password is returned this once, like a key's secret.
      return consoleJson({ user: userJson(result.user, account?.name), password: result.generated ? result.password : undefined }, 201)
    }, { admin: true }))
    .delete('/console/api/users/:id', consoleRoute(services, async ({ viewer, params }) => {
      const user = /^\d{1,15}$/.test(params.id ?? '') ? await store.users.findById(Number(params.id)) : undefined
      if (!user) throw notFound('No such user.')
      if (user.id === viewer.user.id) throw invalidRequest('You cannot delete the login you are signed in with.')
      await deleteUser(store.users, user.name)
      return { deleted: true, id: user.id }
    }, { admin: true }))
}
