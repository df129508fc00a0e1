import { parseAmount } from '../domain/accounts.ts'
import { type KeyField, keyFields, type KeyInputError } from '../domain/key-rules.ts'
import type { KeyChanges } from '../domain/repositories.ts'
import { flagInteger, flagString, type ParsedArgs, UsageError } from './args.ts'

/** The flag that sets each of a key's fields. */
const flagNames: Record<KeyField, string> = {
  name: 'name',
  models: 'models',
  rpm: 'rpm',
  tpm: 'tpm',
  concurrency: 'concurrency',
  budget: 'budget',
  expiresAt: 'expires',
  allowedIps: 'allowed-ips',
  projectId: 'project',
}

/** `none` clears a limit, the budget or the expiry; `all` lifts the model list, `any` the address rule. */
const cleared = (args: ParsedArgs, name: string, word = 'none') => flagString(args, name) === word

function readExpiry(value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  const time = Date.parse(value)
  if (Number.isNaN(time)) throw new UsageError(`--expires must be an ISO-8601 time such as 2027-01-31T00:00:00Z, got "${value}"`)
  return time
}

/**
 * The fields `key create` and `key edit` set, as values: an absent flag leaves its field as it is. Only the text is
 * read here; whether the values are allowed is KeyService's to say (key-rules.ts), as for the console.
 */
export function readKeyFlags(args: ParsedArgs): KeyChanges {
  const changes: KeyChanges = readNameModelsLimits(args)
  const budget = flagString(args, 'budget')
  if (budget !== undefined) changes.budget = budget === 'none' ? null : parseAmount(budget)
  const allowedIps = readAllowedIps(args)
  if (allowedIps !== undefined) changes.allowedIps = allowedIps
  if (args.flags.has('expires')) changes.expiresAt = cleared(args, 'expires') ? null : readExpiry(flagString(args, 'expires'))!
  return changes
}

/**
 * `--name`, `--models` (`all` lifts the list) and `--rpm`, `--tpm`, `--concurrency` (`none` clears one): what a key
 * and a project (cli/governance.ts) are both given.
 */
export function readNameModelsLimits(args: ParsedArgs): Pick<KeyChanges, 'name' | 'models' | 'rpm' | 'tpm' | 'concurrency'> {
  const changes: Pick<KeyChanges, 'name' | 'models' | 'rpm' | 'tpm' | 'concurrency'> = {}
  const name = flagString(args, 'name')
  if (name !== undefined) changes.name = name
  const models = flagString(args, 'models')
  if (models !== undefined)
    changes.models =
      models === 'all'
        ? null
        : models
            .split(',')
            .map((model) => model.trim())
            .filter(Boolean)
  for (const limit of ['rpm', 'tpm', 'concurrency'] as const) {
    if (args.flags.has(limit)) changes[limit] = cleared(args, limit) ? null : flagInteger(args, limit)!
  }
  return changes
}

/** `--allowed-ips LIST` (`any` lifts the rule): what a key and a project are both given; undefined when not given. */
export function readAllowedIps(args: ParsedArgs): string[] | null | undefined {
  const allowedIps = flagString(args, 'allowed-ips')
  if (allowedIps === undefined) return undefined
  return allowedIps === 'any' ? null : allowedIps.split(',').map((entry) => entry.trim())
}

/** KeyService's refusal in the CLI's words: the flag at fault and what it was given (exit 2). */
export function describeKeyInputError(error: KeyInputError, args: ParsedArgs): UsageError {
  if (error.field === undefined) {
    return new UsageError(`nothing to change: give at least one of ${keyFields.map((field) => `--${flagNames[field]}`).join(', ')}`)
  }
  const flag = flagNames[error.field]
  return new UsageError(`--${flag} ${error.rule}, got "${flagString(args, flag)}"`)
}
