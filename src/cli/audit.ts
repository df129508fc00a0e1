import { requireAccount } from '../domain/accounts.ts'
import { describeChanges } from '../domain/audit/describe.ts'
import { auditJson } from '../domain/audit/present.ts'
import type { AuditFilter } from '../domain/audit/records.ts'
import type { Store } from '../domain/repositories.ts'
import { flagInteger, flagString, type ParsedArgs, UsageError } from './args.ts'
import { formatTime, printResult, table } from './output.ts'

function readTime(args: ParsedArgs, name: string): number | undefined {
  const value = flagString(args, name)
  if (value === undefined) return undefined
  const time = Date.parse(value)
  if (Number.isNaN(time)) throw new UsageError(`--${name} must be an ISO-8601 time such as 2026-01-31T00:00:00Z, got "${value}"`)
  return time
}

/**
 * `tollgate audit`: the audit log, newest first, filtered like the console's (actor, object, action, account, time).
 * Reading it changes nothing; no command edits or deletes a row.
 */
export async function runAuditCommand(store: Store, args: ParsedArgs, json: boolean): Promise<void> {
  const accountName = flagString(args, 'account')
  const filter: AuditFilter = {
    accountId: accountName === undefined ? undefined : (await requireAccount(store.accounts, accountName)).id,
    actor: flagString(args, 'actor'),
    objectType: flagString(args, 'object'),
    objectId: flagString(args, 'object-id'),
    action: flagString(args, 'action'),
    since: readTime(args, 'since'),
    until: readTime(args, 'until'),
  }
  const rows = await store.audit.list(filter, flagInteger(args, 'limit') ?? 50)
  printResult(
    json,
    rows.map(auditJson),
    () =>
      table([
        ['TIME', 'ACTOR', 'ADDRESS', 'ACTION', 'OBJECT', 'CHANGES'],
        ...rows.map((row) => [
          formatTime(row.at),
          row.actor.label,
          row.actor.address ?? '-',
          row.action,
          `${row.objectType} ${row.objectId ?? '-'}`,
          describeChanges(row.before, row.after),
        ]),
      ]) || 'no audit rows match',
  )
}
