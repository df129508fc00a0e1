import type { Static } from 'elysia'
import { invalidRequest } from '../../core/errors.ts'
import { parseUsd } from '../../core/money.ts'
import { checkKeyModels, type NewKeyInput } from '../../domain/keys.ts'
import type { newKeyBody } from './schemas.ts'

export function readUsd(text: string, field: string): number {
  try {
    return parseUsd(text)
  } catch (error) {
    throw invalidRequest(`Invalid value for '${field}': ${(error as Error).message}.`, field)
  }
}

/**
 * A new key's fields once the `t` schema has checked their types: what a schema cannot say (exact money, a time
 * in the future, models the config knows) is checked here, with the same rules the CLI applies.
 */
export function readKeyInput(body: Static<typeof newKeyBody>, accountId: number, configuredModels: string[], now = Date.now()): NewKeyInput {
  const models = body.models ?? null
  if (models) checkKeyModels(models, configuredModels)
  const budgetText = body.budget_usd?.trim()
  const budget = budgetText ? readUsd(budgetText, 'budget_usd') : null
  if (budget !== null && budget <= 0) throw invalidRequest(`Invalid value for 'budget_usd': it must be more than 0.`, 'budget_usd')
  const expiresText = body.expires_at?.trim()
  const expiresAt = expiresText ? Date.parse(expiresText) : null
  if (expiresAt !== null && Number.isNaN(expiresAt)) throw invalidRequest(`Invalid value for 'expires_at': expected an ISO-8601 time.`, 'expires_at')
  if (expiresAt !== null && expiresAt <= now) throw invalidRequest(`Invalid value for 'expires_at': it must be in the future.`, 'expires_at')
  return {
    accountId, name: body.name?.trim() || null, models,
    rpm: body.rpm ?? null, tpm: body.tpm ?? null, concurrency: body.concurrency ?? null,
    budget, expiresAt,
  }
}
