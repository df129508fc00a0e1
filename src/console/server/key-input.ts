import type { Static } from 'elysia'
import { invalidRequest } from '../../core/errors.ts'
import { parseUsd } from '../../core/money.ts'
import { checkKeyModels, type NewKeyInput } from '../../domain/keys.ts'
import type { KeyChanges } from '../../domain/repositories.ts'
import type { keyChangesBody, newKeyBody } from './schemas.ts'

export function readUsd(text: string, field: string): number {
  try {
    return parseUsd(text)
  } catch (error) {
    throw invalidRequest(`Invalid value for '${field}': ${(error as Error).message}.`, field)
  }
}

function readBudget(text: string | null | undefined): number | null {
  const trimmed = text?.trim()
  const budget = trimmed ? readUsd(trimmed, 'budget_usd') : null
  if (budget !== null && budget <= 0) throw invalidRequest(`Invalid value for 'budget_usd': it must be more than 0.`, 'budget_usd')
  return budget
}

function readExpiry(text: string | null | undefined, now: number): number | null {
  const trimmed = text?.trim()
  const expiresAt = trimmed ? Date.parse(trimmed) : null
  if (expiresAt !== null && Number.isNaN(expiresAt)) throw invalidRequest(`Invalid value for 'expires_at': expected an ISO-8601 time.`, 'expires_at')
  if (expiresAt !== null && expiresAt <= now) throw invalidRequest(`Invalid value for 'expires_at': it must be in the future.`, 'expires_at')
  return expiresAt
}

/** A key's changes (PATCH): only the fields sent change, checked by the same rules as a new key's. */
export function readKeyChanges(body: Static<typeof keyChangesBody>, configuredModels: string[], now = Date.now()): Omit<KeyChanges, 'hash' | 'prefix'> {
  const changes: Omit<KeyChanges, 'hash' | 'prefix'> = {}
  if (body.name !== undefined) changes.name = body.name?.trim() || null
  if (body.models !== undefined) {
    if (body.models) checkKeyModels(body.models, configuredModels)
    changes.models = body.models
  }
  if (body.rpm !== undefined) changes.rpm = body.rpm
  if (body.tpm !== undefined) changes.tpm = body.tpm
  if (body.concurrency !== undefined) changes.concurrency = body.concurrency
  if (body.budget_usd !== undefined) changes.budget = readBudget(body.budget_usd)
  if (body.expires_at !== undefined) changes.expiresAt = readExpiry(body.expires_at, now)
  if (Object.keys(changes).length === 0) throw invalidRequest('Nothing to change: send at least one of name, models, rpm, tpm, concurrency, budget_usd, expires_at.')
  return changes
}

/**
 * A new key's fields once the `t` schema has checked their types: what a schema cannot say (exact money, a time
 * in the future, models the config knows) is checked here, with the same rules the CLI applies.
 */
export function readKeyInput(body: Static<typeof newKeyBody>, accountId: number, configuredModels: string[], now = Date.now()): NewKeyInput {
  const models = body.models ?? null
  if (models) checkKeyModels(models, configuredModels)
  const budget = readBudget(body.budget_usd)
  const expiresAt = readExpiry(body.expires_at, now)
  return {
    accountId, name: body.name?.trim() || null, models,
    rpm: body.rpm ?? null, tpm: body.tpm ?? null, concurrency: body.concurrency ?? null,
    budget, expiresAt,
  }
}
