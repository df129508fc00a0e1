import { Elysia } from 'elysia'
import { keyJson } from '../../domain/presenters.ts'
import { invalidRequest } from '../../core/errors.ts'
import { createKey, revokeKey } from '../../domain/keys.ts'
import type { Services } from '../../edge/services.ts'
import { readKeyInput } from './key-input.ts'
import { consoleJson } from './respond.ts'
import { consoleRoute } from './route.ts'
import { ownAccountId, visibleAccount, visibleKey } from './scope.ts'

export function keyRoutes(services: Services) {
  const { store } = services
  const accountName = async (id: number) => (await store.accounts.findById(id))?.name
  return new Elysia({ name: 'console-keys' })
    .get('/console/api/keys', consoleRoute(services, async ({ viewer, query }) => {
      const requested = query.get('account_id')
      const accountId = requested ? (await visibleAccount(services, viewer, requested)).id : ownAccountId(viewer)
      const keys = await store.keys.list(accountId)
      const names = new Map((await store.accounts.list()).map((account) => [account.id, account.name]))
      return keys.reverse().map((key) => keyJson(key, names.get(key.accountId)))
    }))
    .post('/console/api/keys', consoleRoute(services, async ({ viewer, body }) => {
      // An account user's keys always go to their own account; naming another one is a 404 like any foreign ID.
      const accountId = body.account_id ?? ownAccountId(viewer)
      if (accountId === undefined || accountId === null) throw invalidRequest(`Missing 'account_id': choose the account the key belongs to.`, 'account_id')
      const account = await visibleAccount(services, viewer, accountId)
      const input = readKeyInput(body, account.id, services.config.models.map((model) => model.id))
      const { record, secret } = await createKey(store.keys, input)
      services.keys.remember(record)
      return consoleJson({ key: keyJson(record, account.name), secret }, 201)
    }))
    .get('/console/api/keys/:id', consoleRoute(services, async ({ viewer, params }) => {
      const key = await visibleKey(services, viewer, params.id)
      return keyJson(key, await accountName(key.accountId))
    }))
    .post('/console/api/keys/:id/revoke', consoleRoute(services, async ({ viewer, params }) => {
      const { key } = await revokeKey(store.keys, (await visibleKey(services, viewer, params.id)).id)
      // This instance refuses the key from now on; other instances within their next poll (≤ 1 s).
      services.keys.remember(key)
      return keyJson(key, await accountName(key.accountId))
    }))
}
