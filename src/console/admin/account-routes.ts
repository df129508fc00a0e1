import { Elysia, t } from 'elysia'
import { createAccount, creditAccount } from '../../domain/accounts.ts'
import { accountJson } from '../../domain/presenters.ts'
import type { Services } from '../../edge/services.ts'
import { readUsd } from '../server/key-input.ts'
import * as schema from '../server/schemas.ts'
import { visibleAccount } from '../server/scope.ts'
import { adminDetail, withAdminToken } from './gate.ts'

const writes = 'Needs a token with scope "full".'

export function adminAccountRoutes(services: Services) {
  const { accounts } = services.store
  return (
    new Elysia({ name: 'admin-api-accounts' })
      .use(withAdminToken(services))
      .get('/admin/api/accounts', async () => (await accounts.list()).map(accountJson), {
        permission: 'accounts:read',
        response: { 200: t.Array(schema.account), ...schema.errorResponses },
        detail: adminDetail('List accounts'),
      })
      .post(
        '/admin/api/accounts',
        async ({ actor, body, status }) => {
          const opening = readUsd(body.balance_usd?.trim() || '0', 'balance_usd')
          return status(201, accountJson(await createAccount(accounts, body.name.trim(), opening, actor)))
        },
        {
          permission: 'accounts:create',
          ...schema.jsonBody(schema.newAccountBody),
          response: { 201: schema.account, ...schema.errorResponses, 409: schema.consoleError },
          detail: adminDetail('Create an account', `An opening balance is a ledger entry naming the token. ${writes}`),
        },
      )
      .get('/admin/api/accounts/:id', async ({ actor, params }) => accountJson(await visibleAccount(services, { actor }, params.id)), {
        permission: 'accounts:read',
        params: schema.idParams('account'),
        response: { 200: schema.account, ...schema.errorResponses },
        detail: adminDetail('Show an account'),
      })
      // The domain refuses a zero amount and an overdraft; the ledger entry names the token as the actor.
      .post(
        '/admin/api/accounts/:id/credits',
        async ({ actor, params, body, status }) => {
          const account = await visibleAccount(services, { actor }, params.id)
          const amount = readUsd(body.amount_usd.trim(), 'amount_usd')
          return status(201, accountJson(await creditAccount(accounts, account.name, amount, body.note.trim(), actor)))
        },
        {
          permission: 'accounts:credit',
          params: schema.idParams('account'),
          ...schema.jsonBody(schema.creditBody),
          response: { 201: schema.account, ...schema.errorResponses },
          detail: adminDetail('Credit or debit an account', `The note is kept in the ledger with the token's name. ${writes}`),
        },
      )
  )
}
