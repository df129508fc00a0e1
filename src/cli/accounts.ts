import { formatUsd } from '../core/money.ts'
import type { AccountRecord } from '../domain/records.ts'
import type { Store } from '../domain/repositories.ts'
import { createAccount, creditAccount, parseAmount, requireAccount } from '../domain/accounts.ts'
import { accountJson } from '../domain/presenters.ts'
import { changeByCli } from './actor.ts'
import { flagString, type ParsedArgs, UsageError } from './args.ts'
import { printResult, table } from './output.ts'

function describe(account: AccountRecord): string {
  return `${account.name}: balance $${formatUsd(account.balance)} (available $${formatUsd(account.balance - account.reserved)})`
}

export async function runAccountCommand(store: Store, args: ParsedArgs, json: boolean): Promise<void> {
  const [, action, name, amount] = args.positional
  switch (action) {
    case 'create': {
      if (!name) throw new UsageError('usage: tollgate account create NAME [--balance USD]')
      const balance = parseAmount(flagString(args, 'balance') ?? '0')
      const account = await createAccount(store.accounts, name, balance, changeByCli())
      return printResult(json, accountJson(account), () => `created account ${describe(account)}`)
    }
    case 'credit': {
      if (!name || amount === undefined) throw new UsageError('usage: tollgate account credit NAME USD [--note TEXT]')
      const account = await creditAccount(
        store.accounts,
        name,
        parseAmount(amount),
        flagString(args, 'note') ?? 'credit from CLI',
        changeByCli(),
      )
      return printResult(json, accountJson(account), () => `credited ${describe(account)}`)
    }
    case 'show': {
      if (!name) throw new UsageError('usage: tollgate account show NAME')
      const account = await requireAccount(store.accounts, name)
      return printResult(json, accountJson(account), () => describe(account))
    }
    case 'list': {
      const accounts = await store.accounts.list()
      return printResult(json, accounts.map(accountJson), () =>
        accounts.length
          ? table([
              ['NAME', 'BALANCE', 'AVAILABLE'],
              ...accounts.map((account) => [
                account.name,
                `$${formatUsd(account.balance)}`,
                `$${formatUsd(account.balance - account.reserved)}`,
              ]),
            ])
          : 'no accounts',
      )
    }
    default:
      throw new UsageError('usage: tollgate account create|credit|show|list …')
  }
}
