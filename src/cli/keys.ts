import type { Config } from '../config/types.ts'
import { formatUsd } from '../core/money.ts'
import type { Store } from '../domain/repositories.ts'
import { accountNames, parseAmount, requireAccount } from '../domain/accounts.ts'
import { checkKeyModels, createKey, keyStatus, listKeys, revokeKey } from '../domain/keys.ts'
import { keyJson } from '../domain/presenters.ts'
import { flagInteger, flagString, type ParsedArgs, UsageError } from './args.ts'
import { formatTime, printResult, table } from './output.ts'

/** A key that could never be used is a mistake, not a setting (the console refuses the same two). */
function parseExpiry(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined
  const time = Date.parse(value)
  if (Number.isNaN(time)) throw new UsageError(`--expires must be an ISO-8601 time such as 2027-01-31T00:00:00Z, got "${value}"`)
  if (time <= now) throw new UsageError(`--expires must be in the future, got ${new Date(time).toISOString()}`)
  return time
}

function parseBudget(value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  const budget = parseAmount(value)
  if (budget <= 0) throw new UsageError(`--budget must be more than 0 dollars, got "${value}"`)
  return budget
}

export async function runKeyCommand(store: Store, config: Config, args: ParsedArgs, json: boolean): Promise<void> {
  const [, action, id] = args.positional
  switch (action) {
    case 'create': {
      const accountName = flagString(args, 'account')
      if (!accountName) throw new UsageError('usage: tollgate key create --account NAME [--name LABEL] [--models id1,id2]')
      const account = await requireAccount(store.accounts, accountName)
      const models = flagString(args, 'models')?.split(',').map((model) => model.trim()).filter(Boolean)
      checkKeyModels(models, config.models.map((model) => model.id))
      const budget = parseBudget(flagString(args, 'budget'))
      const expiresAt = parseExpiry(flagString(args, 'expires'))
      const { record, secret } = await createKey(store.keys, {
        accountId: account.id, name: flagString(args, 'name') ?? null, models: models ?? null,
        rpm: flagInteger(args, 'rpm'), tpm: flagInteger(args, 'tpm'), concurrency: flagInteger(args, 'concurrency'),
        budget, expiresAt,
      })
      return printResult(json, { ...keyJson(record, account.name), key: secret }, () =>
        `created key ${record.id} for ${account.name}\n\n  ${secret}\n\nThis secret is shown only now; store it somewhere safe.`)
    }
    case 'list': {
      const accountName = flagString(args, 'account')
      const account = accountName ? await requireAccount(store.accounts, accountName) : undefined
      const keys = await listKeys(store.keys, account?.id)
      const names = await accountNames(store.accounts)
      // The prefix is what is kept of a secret besides its SHA-256: enough to recognise a key, never to use it.
      return printResult(json, keys.map((key) => keyJson(key, names.get(key.accountId))), () => keys.length === 0 ? 'no keys' : table([
        ['ID', 'ACCOUNT', 'NAME', 'PREFIX', 'STATUS', 'MODELS', 'LIMITS', 'SPENT', 'LAST USED'],
        ...keys.map((key) => [
          key.id, names.get(key.accountId) ?? '?', key.name ?? '-', `${key.prefix}…`, keyStatus(key), key.models?.join(',') ?? 'all',
          [key.rpm && `rpm=${key.rpm}`, key.tpm && `tpm=${key.tpm}`, key.concurrency && `conc=${key.concurrency}`,
            key.budget !== null && `budget=$${formatUsd(key.budget)}`, key.expiresAt !== null && `expires=${formatTime(key.expiresAt)}`]
            .filter(Boolean).join(' ') || '-',
          `$${formatUsd(key.spent)}`, formatTime(key.lastUsedAt),
        ]),
      ]) + '\n\nPREFIX: the first characters of a key, kept to recognise it; the rest of the secret is stored only as its SHA-256.')
    }
    case 'revoke': {
      if (!id) throw new UsageError('usage: tollgate key revoke ID')
      const { key, changed } = await revokeKey(store.keys, id)
      return printResult(json, keyJson(key), () => (changed ? `revoked key ${id}` : `key ${id} was already revoked`))
    }
    default:
      throw new UsageError('usage: tollgate key create|list|revoke …')
  }
}
