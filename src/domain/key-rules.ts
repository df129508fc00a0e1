import { DomainError } from './errors.ts'
import { normalizeAllowedIps } from '../core/allowed-ips.ts'
import type { KeyChanges } from './repositories.ts'

/** A field of a key that a change may set (domain names: each caller names them its own way, `budget_usd`, `--budget`). */
export type KeyField = keyof KeyChanges

/** Every field a change may set, in the order a message lists them. */
export const keyFields: readonly KeyField[] = [
  'name',
  'models',
  'rpm',
  'tpm',
  'concurrency',
  'budget',
  'expiresAt',
  'allowedIps',
  'projectId',
]

/** The largest rpm, tpm or concurrency a key may have (the database column is a 32-bit integer). */
export const maxKeyLimit = 1_000_000_000
export const maxKeyNameLength = 100

/**
 * A key change the rules refuse: `field` is the one at fault (undefined when the change sets no field at all) and
 * `rule` says what it must be, phrased to follow the field's name ("must be more than 0"), so the console can say
 * `Invalid value for 'budget_usd': it must be more than 0.` and the CLI `--budget must be more than 0`.
 */
export class KeyInputError extends DomainError {
  constructor(
    readonly field: KeyField | undefined,
    readonly rule: string,
  ) {
    super('invalid', field === undefined ? rule : `${field} ${rule}`)
  }
}

export interface KeyRuleContext {
  /** The model ids the config knows now (a reload's new models count at once). */
  configuredModels: readonly string[]
  now: number
}

/**
 * A key's fields checked and normalised, the one place the rules live (the console, the admin API and the CLI only
 * turn their text into values): a name is trimmed (empty: none) and at most 100 characters; models are configured
 * ones, each once, at least one (null: every model); limits are whole numbers from 1; a budget is more than 0; an
 * expiry is in the future; allowed addresses are addresses or CIDR blocks, each once, at least one (null: every
 * address). Undefined leaves a field as it is; null clears it.
 */
export function checkKeyChanges(changes: KeyChanges, context: KeyRuleContext): KeyChanges {
  const checked: KeyChanges = {}
  if (changes.name !== undefined) checked.name = checkName(changes.name)
  if (changes.models !== undefined) checked.models = checkModels(changes.models, context.configuredModels)
  for (const field of ['rpm', 'tpm', 'concurrency'] as const) {
    if (changes[field] !== undefined) checked[field] = checkLimit(field, changes[field])
  }
  if (changes.budget !== undefined) checked.budget = checkBudget(changes.budget)
  if (changes.expiresAt !== undefined) checked.expiresAt = checkExpiry(changes.expiresAt, context.now)
  if (changes.allowedIps !== undefined) checked.allowedIps = checkAllowedIps(changes.allowedIps)
  if (changes.projectId !== undefined) checked.projectId = changes.projectId // KeyService checks it against the account
  return checked
}

function checkName(name: string | null): string | null {
  const trimmed = name?.trim() || null
  if (trimmed !== null && trimmed.length > maxKeyNameLength) {
    throw new KeyInputError('name', `must be at most ${maxKeyNameLength} characters`)
  }
  return trimmed
}

function checkModels(models: string[] | null, configured: readonly string[]): string[] | null {
  if (models === null) return null
  // An empty list would read as "no restriction" to the store: a key meant to be narrowed must not open up.
  if (models.length === 0) throw new KeyInputError('models', 'must name at least one model (or none at all, for every model)')
  const known = new Set(configured)
  const unknown = models.filter((model) => !known.has(model))
  if (unknown.length) {
    throw new KeyInputError('models', `names unknown model(s) ${unknown.join(', ')}; configured: ${configured.join(', ')}`)
  }
  return [...new Set(models)]
}

function checkLimit(field: 'rpm' | 'tpm' | 'concurrency', value: number | null): number | null {
  if (value === null) return null
  if (!Number.isInteger(value) || value < 1 || value > maxKeyLimit) {
    throw new KeyInputError(field, `must be a whole number from 1 to ${maxKeyLimit}`)
  }
  return value
}

function checkBudget(budget: number | null): number | null {
  if (budget === null) return null
  if (!Number.isSafeInteger(budget) || budget <= 0) throw new KeyInputError('budget', 'must be more than 0')
  return budget
}

function checkExpiry(expiresAt: number | null, now: number): number | null {
  if (expiresAt === null) return null
  if (!Number.isFinite(expiresAt) || expiresAt <= now) throw new KeyInputError('expiresAt', 'must be in the future')
  return expiresAt
}

function checkAllowedIps(entries: string[] | null): string[] | null {
  if (entries === null) return null
  try {
    return normalizeAllowedIps(entries)
  } catch (error) {
    throw new KeyInputError('allowedIps', (error as Error).message)
  }
}
