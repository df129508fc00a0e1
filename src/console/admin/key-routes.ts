import { Elysia, t } from 'elysia'
import { invalidRequest } from '../../core/errors.ts'
import { accountNames } from '../../domain/accounts.ts'
import { listKeys } from '../../domain/keys.ts'
import { keyJson } from '../../domain/presenters.ts'
import type { Services } from '../../edge/services.ts'
import { readKeyChanges, readNewKey } from '../server/key-input.ts'
import * as schema from '../server/schemas.ts'
import { findAccount, findKey } from '../server/scope.ts'
import { adminDetail, withAdminToken } from './gate.ts'

const writes = 'Needs a token with scope "full".'
const atOnce = 'Takes effect at once on this instance, and on the others as soon as they hear of it (Redis) or poll (within a second).'

/**
 * API keys through the admin API. Every change is KeyService's, as in the console: checked the same way, and applied
 * by this instance before answering, so a rotated-out or revoked secret is refused by the very next request.
 */
export function adminKeyRoutes(services: Services) {
  const { store, keyService } = services
  const accountName = async (id: number) => (await store.accounts.findById(id))?.name
  return new Elysia({ name: 'admin-api-keys' })
    .use(withAdminToken(services))
    .get(
      '/admin/api/keys',
      async ({ query }) => {
        const accountId = query.account_id ? (await findAccount(services, undefined, query.account_id)).id : undefined
        const [keys, names] = await Promise.all([listKeys(store.keys, accountId), accountNames(store.accounts)])
        return keys.reverse().map((key) => keyJson(key, names.get(key.accountId)))
      },
      {
        permission: 'keys:read',
        query: t.Object({ account_id: t.Optional(t.String({ description: "Only this account's keys" })) }),
        response: { 200: t.Array(schema.key), ...schema.errorResponses },
        detail: adminDetail('List keys, newest first'),
      },
    )
    .post(
      '/admin/api/keys',
      async ({ body, status, actor }) => {
        if (body.account_id === undefined || body.account_id === null)
          throw invalidRequest(`Missing 'account_id': the account the key belongs to.`, 'account_id')
        const account = await findAccount(services, undefined, body.account_id)
        const { record, secret } = await keyService.create(readNewKey(body, account.id), actor)
        return status(201, { key: keyJson(record, account.name), secret })
      },
      {
        permission: 'keys:write',
        ...schema.jsonBody(schema.newKeyBody),
        response: { 201: schema.createdKey, ...schema.errorResponses },
        detail: adminDetail(
          'Create a key',
          `account_id is required. The answer holds the secret, the only time it is ever shown. ${writes}`,
        ),
      },
    )
    .get(
      '/admin/api/keys/:id',
      async ({ params }) => {
        const key = await findKey(services, undefined, params.id)
        return keyJson(key, await accountName(key.accountId))
      },
      {
        permission: 'keys:read',
        params: schema.idParams('key'),
        response: { 200: schema.key, ...schema.errorResponses },
        detail: adminDetail('Show a key'),
      },
    )
    .patch(
      '/admin/api/keys/:id',
      async ({ params, body, actor }) => {
        const found = await findKey(services, undefined, params.id)
        const key = await keyService.edit(found.id, readKeyChanges(body), actor)
        return keyJson(key, await accountName(key.accountId))
      },
      {
        permission: 'keys:write',
        params: schema.idParams('key'),
        ...schema.jsonBody(schema.keyChangesBody),
        response: { 200: schema.key, ...schema.errorResponses, 409: schema.consoleError },
        detail: adminDetail(
          'Change a key',
          `Limits, models, budget, expiry or name: an absent field stays as it is, null clears it. A revoked key cannot change (409). ${atOnce} ${writes}`,
        ),
      },
    )
    .post(
      '/admin/api/keys/:id/revoke',
      async ({ params, actor }) => {
        const found = await findKey(services, undefined, params.id)
        const { key } = await keyService.revoke(found.id, actor)
        return keyJson(key, await accountName(key.accountId))
      },
      {
        permission: 'keys:write',
        params: schema.idParams('key'),
        response: { 200: schema.key, ...schema.errorResponses },
        detail: adminDetail('Revoke a key', `Revoking a revoked key changes nothing. ${atOnce} ${writes}`),
      },
    )
    .post(
      '/admin/api/keys/:id/rotate',
      async ({ params, actor }) => {
        const found = await findKey(services, undefined, params.id)
        const { record, secret } = await keyService.rotate(found.id, actor)
        return { key: keyJson(record, await accountName(record.accountId)), secret }
      },
      {
        permission: 'keys:write',
        params: schema.idParams('key'),
        response: { 200: schema.createdKey, ...schema.errorResponses, 409: schema.consoleError },
        detail: adminDetail(
          'Rotate a key',
          'A new secret for the same key: its ID, limits, spend and usage history stay; the old secret stops working. ' +
            `The answer holds the new secret, shown this once. A revoked key cannot be rotated (409). ${atOnce} ${writes}`,
        ),
      },
    )
}
