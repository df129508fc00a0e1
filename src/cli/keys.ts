import { formatUsd } from '../core/money.ts'
import type { Store } from '../domain/repositories.ts'
import { accountNames, requireAccount } from '../domain/accounts.ts'
import { KeyInputError } from '../domain/key-rules.ts'
import type { KeyService } from '../domain/key-service.ts'
import { keyStatus, listKeys } from '../domain/keys.ts'
import { keyJson } from '../domain/presenters.ts'
import type { KeyRecord } from '../domain/records.ts'
import { changeByCli } from './actor.ts'
import { describeKeyInputError, readKeyFlags } from './key-flags.ts'
import { flagString, type ParsedArgs, UsageError } from './args.ts'
import { formatTime, printResult, table } from './output.ts'
import { requireProject } from './governance.ts'

/** A key's limits in one cell: `rpm=5 budget=$1.00`, or `-` for none. */
function describeLimits(key: KeyRecord): string {
  return (
    [
      key.rpm && `rpm=${key.rpm}`,
      key.tpm && `tpm=${key.tpm}`,
      key.concurrency && `conc=${key.concurrency}`,
      key.budget !== null && `budget=$${formatUsd(key.budget)}`,
      key.expiresAt !== null && `expires=${formatTime(key.expiresAt)}`,
      key.allowedIps !== null && `from=${key.allowedIps.join(',')}`,
    ]
      .filter(Boolean)
      .join(' ') || '-'
  )
}

/** `--project NAME` (of the key's account) as its project id; `none` takes the key out of its project. */
async function readProject(store: Store, args: ParsedArgs, accountId: number): Promise<{ projectId?: number | null }> {
  const name = flagString(args, 'project')
  if (name === undefined) return {}
  return { projectId: name === 'none' ? null : (await requireProject(store, accountId, name)).id }
}

/**
 * `tollgate key …`. Every change goes through KeyService, as the console's and the admin API's do: the same checks,
 * and the running instances hear of it (`keyService` is built by main.ts with an announcer when Redis is configured).
 */
export async function runKeyCommand(store: Store, keyService: KeyService, args: ParsedArgs, json: boolean): Promise<void> {
  try {
    await runAction(store, keyService, args, json)
  } catch (error) {
    throw error instanceof KeyInputError ? describeKeyInputError(error, args) : error
  }
}

async function runAction(store: Store, keyService: KeyService, args: ParsedArgs, json: boolean): Promise<void> {
  const [, action, id] = args.positional
  switch (action) {
    case 'create': {
      const accountName = flagString(args, 'account')
      if (!accountName) throw new UsageError('usage: tollgate key create --account NAME [--name LABEL] [--models id1,id2]')
      const account = await requireAccount(store.accounts, accountName)
      const { record, secret } = await keyService.create(
        { ...readKeyFlags(args), ...(await readProject(store, args, account.id)), accountId: account.id },
        changeByCli(),
      )
      return printResult(
        json,
        { ...keyJson(record, account.name), key: secret },
        () => `created key ${record.id} for ${account.name}\n\n  ${secret}\n\nThis secret is shown only now; store it somewhere safe.`,
      )
    }
    case 'list': {
      const accountName = flagString(args, 'account')
      const account = accountName ? await requireAccount(store.accounts, accountName) : undefined
      const keys = await listKeys(store.keys, account?.id)
      const names = await accountNames(store.accounts)
      // The prefix is what is kept of a secret besides its SHA-256: enough to recognise a key, never to use it.
      return printResult(
        json,
        keys.map((key) => keyJson(key, names.get(key.accountId))),
        () =>
          keys.length === 0
            ? 'no keys'
            : table([
                ['ID', 'ACCOUNT', 'NAME', 'PREFIX', 'STATUS', 'MODELS', 'LIMITS', 'SPENT', 'LAST USED'],
                ...keys.map((key) => [
                  key.id,
                  names.get(key.accountId) ?? '?',
                  key.name ?? '-',
                  `${key.prefix}…`,
                  keyStatus(key),
                  key.models?.join(',') ?? 'all',
                  describeLimits(key),
                  `$${formatUsd(key.spent)}`,
                  formatTime(key.lastUsedAt),
                ]),
              ]) + '\n\nPREFIX: the first characters of a key, kept to recognise it; the rest of the secret is stored only as its SHA-256.',
      )
    }
    case 'edit': {
      const stored = args.flags.has('project') ? await store.keys.findById(id!) : undefined
      const key = await keyService.edit(
        id!,
        { ...readKeyFlags(args), ...(stored && (await readProject(store, args, stored.accountId))) },
        changeByCli(),
      )
      return printResult(
        json,
        keyJson(key),
        () => `changed key ${key.id}: models ${key.models?.join(',') ?? 'all'}, limits ${describeLimits(key)}`,
      )
    }
    case 'rotate': {
      const { record, secret } = await keyService.rotate(id!, changeByCli())
      return printResult(
        json,
        { ...keyJson(record), key: secret },
        () =>
          `rotated key ${record.id}: the old secret is refused from now on\n\n  ${secret}\n\n` +
          'This secret is shown only now; store it somewhere safe.',
      )
    }
    case 'revoke': {
      if (!id) throw new UsageError('usage: tollgate key revoke ID')
      const { key, changed } = await keyService.revoke(id, changeByCli())
      return printResult(json, keyJson(key), () => (changed ? `revoked key ${id}` : `key ${id} was already revoked`))
    }
    default:
      throw new UsageError('usage: tollgate key create|list|edit|rotate|revoke …')
  }
}
