import { Elysia, t } from 'elysia'
import { invalidRequest } from '../../core/errors.ts'
import { accountNames } from '../../domain/accounts.ts'
import { listKeys } from '../../domain/keys.ts'
import { keyJson } from '../../domain/presenters.ts'
import type { Services } from '../../edge/services.ts'
import { readKeyChanges, readNewKey } from './key-input.ts'
import * as schema from './schemas.ts'
import { ownAccountId, visibleAccount, visibleKey } from './scope.ts'
import { signedIn } from './signed-in.ts'

const tags = ['API keys']

/** Keys in the console: each change is KeyService's (checked, stored, told to the key caches); this says who may ask. */
export function keyRoutes(services: Services) {
  const { store, keyService } = services
  const accountName = async (id: number) => (await store.accounts.findById(id))?.name
  return new Elysia({ name: 'console-keys' })
    .use(signedIn(services))
    .get(
      '/console/api/keys',
      async ({ viewer, query }) => {
        const accountId = query.account_id ? (await visibleAccount(services, viewer, query.account_id)).id : ownAccountId(viewer)
        const [keys, names] = await Promise.all([listKeys(store.keys, accountId), accountNames(store.accounts)])
        return keys.reverse().map((key) => keyJson(key, names.get(key.accountId)))
      },
      {
        permission: 'keys:read',
        query: schema.accountQuery,
        response: { 200: t.Array(schema.key), ...schema.errorResponses },
        detail: { tags, summary: 'List keys, newest first', description: "An account user sees only their own account's keys." },
      },
    )
    .post(
      '/console/api/keys',
      async ({ viewer, actor, body, status }) => {
        // An account user's keys always go to their own account; naming another one is a 404 like any foreign ID.
        const accountId = body.account_id ?? ownAccountId(viewer)
        if (accountId === undefined || accountId === null)
          throw invalidRequest(`Missing 'account_id': choose the account the key belongs to.`, 'account_id')
        const account = await visibleAccount(services, viewer, accountId)
        const { record, secret } = await keyService.create(readNewKey(body, account.id), actor)
        return status(201, { key: keyJson(record, account.name), secret })
      },
      {
        permission: 'keys:write',
        ...schema.jsonBody(schema.newKeyBody),
        response: { 201: schema.createdKey, ...schema.errorResponses },
        detail: { tags, summary: 'Create a key', description: 'The answer holds the secret, the only time it is ever shown.' },
      },
    )
    .get(
      '/console/api/keys/:id',
      async ({ viewer, params }) => {
        const key = await visibleKey(services, viewer, params.id)
        return keyJson(key, await accountName(key.accountId))
      },
      {
        permission: 'keys:read',
        params: schema.idParams('key'),
        response: { 200: schema.key, ...schema.errorResponses },
        detail: { tags, summary: 'Show a key' },
      },
    )
    .patch(
      '/console/api/keys/:id',
      async ({ viewer, actor, params, body }) => {
        const visible = await visibleKey(services, viewer, params.id)
        // New limits count for the next request on this instance, at once on the others with Redis, else within a poll.
        const key = await keyService.edit(visible.id, readKeyChanges(body), actor)
        return keyJson(key, await accountName(key.accountId))
      },
      {
        permission: 'keys:write',
        params: schema.idParams('key'),
        ...schema.jsonBody(schema.keyChangesBody),
        response: { 200: schema.key, ...schema.errorResponses, 409: schema.consoleError },
        detail: {
          tags,
          summary: "Change a key's name, models, limits, budget or expiry",
          description: 'Only the fields sent change; null removes a limit. A revoked key cannot change (409).',
        },
      },
    )
    .post(
      '/console/api/keys/:id/rotate',
      async ({ viewer, actor, params }) => {
        const visible = await visibleKey(services, viewer, params.id)
        // The cache forgets the old secret's hash: from this response on, the old secret is refused here.
        const { record, secret } = await keyService.rotate(visible.id, actor)
        return { key: keyJson(record, await accountName(record.accountId)), secret }
      },
      {
        permission: 'keys:write',
        params: schema.idParams('key'),
        response: { 200: schema.createdKey, ...schema.errorResponses, 409: schema.consoleError },
        detail: {
          tags,
          summary: 'Rotate a key: a new secret, the same key',
          description:
            'The answer holds the new secret, shown this once. Limits, spend and history stay; the old secret is refused at once. ' +
            'A revoked key cannot be rotated (409).',
        },
      },
    )
    .post(
      '/console/api/keys/:id/revoke',
      async ({ viewer, actor, params }) => {
        const visible = await visibleKey(services, viewer, params.id)
        // This instance refuses the key from now on; the others as soon as they hear of it (Redis) or poll (≤ 1 s).
        const { key } = await keyService.revoke(visible.id, actor)
        return keyJson(key, await accountName(key.accountId))
      },
      {
        permission: 'keys:write',
        params: schema.idParams('key'),
        response: { 200: schema.key, ...schema.errorResponses },
        detail: { tags, summary: 'Revoke a key', description: 'Takes effect at once; revoking a revoked key changes nothing.' },
      },
    )
}
