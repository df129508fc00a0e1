import { invalidRequest } from '../../core/errors.ts'
import { parseUsd } from '../../core/money.ts'
import { checkKeyModels, type NewKeyInput } from '../../domain/keys.ts'
import { optionalNumber, optionalString, requireArray, requireString, type Json } from '../../protocols/shared/validate.ts'

function optionalLimit(body: Json, field: string): number | null {
  return optionalNumber(body[field], field, { min: 1, max: 1_000_000_000, integer: true }) ?? null
}

export function readUsd(text: string, field: string): number {
  try {
    return parseUsd(text)
  } catch (error) {
    throw invalidRequest(`Invalid value for '${field}': ${(error as Error).message}.`, field)
  }
}

/** The key fields of a console request, checked with the same rules the CLI applies. */
export function readKeyInput(body: Json, accountId: number, configuredModels: string[], now = Date.now()): NewKeyInput {
  const name = optionalString(body.name, 'name')?.trim() || null
  if (name !== null && name.length > 100) throw invalidRequest(`Invalid value for 'name': at most 100 characters.`, 'name')
  let models: string[] | null = null
  if (body.models !== undefined && body.models !== null) {
    models = requireArray(body.models, 'models').map((model, index) => requireString(model, `models[${index}]`))
    if (models.length === 0) throw invalidRequest(`Invalid value for 'models': pick at least one model, or send null for all of them.`, 'models')
    checkKeyModels(models, configuredModels)
  }
  const budgetText = optionalString(body.budget_usd, 'budget_usd')?.trim()
  const budget = budgetText ? readUsd(budgetText, 'budget_usd') : null
  if (budget !== null && budget <= 0) throw invalidRequest(`Invalid value for 'budget_usd': it must be more than 0.`, 'budget_usd')
  const expiresText = optionalString(body.expires_at, 'expires_at')?.trim()
  const expiresAt = expiresText ? Date.parse(expiresText) : null
  if (expiresAt !== null && Number.isNaN(expiresAt)) throw invalidRequest(`Invalid value for 'expires_at': expected an ISO-8601 time.`, 'expires_at')
  if (expiresAt !== null && expiresAt <= now) throw invalidRequest(`Invalid value for 'expires_at': it must be in the future.`, 'expires_at')
  return {
    accountId, name, models,
    rpm: optionalLimit(body, 'rpm'), tpm: optionalLimit(body, 'tpm'), concurrency: optionalLimit(body, 'concurrency'),
    budget, expiresAt,
  }
}
