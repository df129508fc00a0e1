import { Elysia } from 'elysia'
import { accountJson, creditJson, dayJson } from '../../domain/presenters.ts'
import { invalidRequest } from '../../core/errors.ts'
import { createAccount, creditAccount } from '../../domain/accounts.ts'
import { optionalString, requireString } from '../../protocols/shared/validate.ts'
import type { Services } from '../../edge/services.ts'
import { readUsd } from './key-input.ts'
import { consoleJson } from './respond.ts'
import { consoleRoute } from './route.ts'
import { isAdmin, visibleAccount } from './scope.ts'

const dayMs = 86_400_000
const spendHistoryDays = 90

export function accountRoutes(services: Services) {
  const { accounts, usage } = services.store
  return new Elysia({ name: 'console-accounts' })
    .get('/console/api/accounts', consoleRoute(services, async ({ viewer }) => {
      if (isAdmin(viewer)) return (await accounts.list()).map(accountJson)
      return [accountJson(await visibleAccount(services, viewer, viewer.user.accountId))]
    }))
    .post('/console/api/accounts', consoleRoute(services, async ({ viewer, body }) => {
      const name = requireString(body.name, 'name').trim()
      const opening = readUsd(optionalString(body.balance_usd, 'balance_usd')?.trim() || '0', 'balance_usd')
      return consoleJson(accountJson(await createAccount(accounts, name, opening, viewer.user.name)), 201)
    }, { admin: true }))
    .get('/console/api/accounts/:id', consoleRoute(services, async ({ viewer, params }) => {
      return accountJson(await visibleAccount(services, viewer, params.id))
    }))
    // Each credit is a ledger entry that records who made it and why; the domain refuses zero and overdrafts.
    .post('/console/api/accounts/:id/credits', consoleRoute(services, async ({ viewer, params, body }) => {
      const account = await visibleAccount(services, viewer, params.id)
      const amount = readUsd(requireString(body.amount_usd, 'amount_usd').trim(), 'amount_usd')
      const note = requireString(body.note, 'note').trim()
      if (!note) throw invalidRequest(`Missing 'note': say why the balance changes (it is kept in the ledger).`, 'note')
      if (note.length > 200) throw invalidRequest(`Invalid value for 'note': at most 200 characters.`, 'note')
      return consoleJson(accountJson(await creditAccount(accounts, account.name, amount, note, viewer.user.name)), 201)
    }, { admin: true }))
    // Balance history: every ledger entry, and the spend of each day with requests (last 90 days), newest first.
    .get('/console/api/accounts/:id/history', consoleRoute(services, async ({ viewer, params }) => {
      const account = await visibleAccount(services, viewer, params.id)
      const since = (Math.floor(Date.now() / dayMs) - spendHistoryDays + 1) * dayMs
      const [entries, days] = await Promise.all([accounts.ledgerEntries(account.id), usage.dailyTotals({ accountId: account.id, since })])
      const history = [
        ...entries.map((entry) => ({ sortAt: entry.createdAt, item: creditJson(entry) })),
        // A day's spend is listed at the end of that day, after the credits made during it.
        ...days.filter((day) => day.requests > 0).map((day) => ({ sortAt: day.day + dayMs - 1, item: { kind: 'usage' as const, ...dayJson(day) } })),
      ].sort((a, b) => b.sortAt - a.sortAt)
      return { account: accountJson(account), spend_since: new Date(since).toISOString(), history: history.map((entry) => entry.item) }
    }))
}
