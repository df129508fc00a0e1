import { Elysia, t } from 'elysia'
import { createAccount, creditAccount } from '../../domain/accounts.ts'
import { accountJson } from '../../domain/presenters.ts'
import { balanceHistory } from './balance-history.ts'
import type { Services } from '../../edge/services.ts'
import { readUsd } from './key-input.ts'
import * as schema from './schemas.ts'
import { seesEveryAccount, visibleAccount } from './scope.ts'
import { signedIn } from './signed-in.ts'

const dayMs = 86_400_000
const spendHistoryDays = 90
const tags = ['Accounts']

/** What every role may read: every account for an admin, its own for an account's login. */
function accountReadRoutes(services: Services) {
  const { accounts } = services.store
  return (
    new Elysia({ name: 'console-account-reads' })
      .use(signedIn(services))
      .get(
        '/console/api/accounts',
        async ({ viewer }) => {
          if (seesEveryAccount(viewer)) return (await accounts.list()).map(accountJson)
          return [accountJson(await visibleAccount(services, viewer, viewer.user.accountId))]
        },
        {
          permission: 'accounts:read',
          response: { 200: t.Array(schema.account), ...schema.errorResponses },
          detail: { tags, summary: 'List accounts', description: "An account's login sees only its own." },
        },
      )
      .get('/console/api/accounts/:id', async ({ viewer, params }) => accountJson(await visibleAccount(services, viewer, params.id)), {
        permission: 'accounts:read',
        params: schema.idParams('account'),
        response: { 200: schema.account, ...schema.errorResponses },
        detail: { tags, summary: 'Show an account' },
      })
      // Balance history: every ledger entry, and the spend of each day with requests (last 90 days), newest first.
      .get(
        '/console/api/accounts/:id/history',
        async ({ viewer, params }) => {
          const account = await visibleAccount(services, viewer, params.id)
          const since = (Math.floor(Date.now() / dayMs) - spendHistoryDays + 1) * dayMs
          return {
            account: accountJson(account),
            spend_since: new Date(since).toISOString(),
            history: await balanceHistory(services, account, since),
          }
        },
        {
          permission: 'accounts:read',
          params: schema.idParams('account'),
          response: { 200: schema.accountHistory, ...schema.errorResponses },
          detail: {
            tags,
            summary: "An account's balance history",
            description:
              'Credits, and spending over the last 90 days per day (split where a credit fell within the day), newest first in the order they happened, each with the balance after it.',
          },
        },
      )
  )
}

/** Money moves only by an admin's hand: each change is a ledger entry naming who made it and why. */
function accountAdminRoutes(services: Services) {
  const { accounts } = services.store
  return (
    new Elysia({ name: 'console-account-changes' })
      .use(signedIn(services))
      .post(
        '/console/api/accounts',
        async ({ actor, body, status }) => {
          const opening = readUsd(body.balance_usd?.trim() || '0', 'balance_usd')
          return status(201, accountJson(await createAccount(accounts, body.name.trim(), opening, actor)))
        },
        {
          permission: 'accounts:create',
          ...schema.jsonBody(schema.newAccountBody),
          response: { 201: schema.account, ...schema.errorResponses },
          detail: { tags, summary: 'Create an account' },
        },
      )
      // The domain refuses a zero amount and an overdraft.
      .post(
        '/console/api/accounts/:id/credits',
        async ({ viewer, actor, params, body, status }) => {
          const account = await visibleAccount(services, viewer, params.id)
          const amount = readUsd(body.amount_usd.trim(), 'amount_usd')
          return status(201, accountJson(await creditAccount(accounts, account.name, amount, body.note.trim(), actor)))
        },
        {
          permission: 'accounts:credit',
          params: schema.idParams('account'),
          ...schema.jsonBody(schema.creditBody),
          response: { 201: schema.account, ...schema.errorResponses },
          detail: { tags, summary: 'Credit or debit an account' },
        },
      )
  )
}

export function accountRoutes(services: Services) {
  return new Elysia({ name: 'console-accounts' }).use(accountReadRoutes(services)).use(accountAdminRoutes(services))
}
