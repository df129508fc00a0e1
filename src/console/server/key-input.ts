import type { Static } from 'elysia'
import { type GatewayError, invalidRequest } from '../../core/errors.ts'
import { parseUsd } from '../../core/money.ts'
import { type KeyField, keyFields, type KeyInputError } from '../../domain/key-rules.ts'
import type { NewKeyInput } from '../../domain/keys.ts'
import type { KeyChanges } from '../../domain/repositories.ts'
import type { keyChangesBody, newKeyBody } from './schemas.ts'

export function readUsd(text: string, field: string): number {
  try {
    return parseUsd(text)
  } catch (error) {
    throw invalidRequest(`Invalid value for '${field}': ${(error as Error).message}.`, field)
  }
}

/** How the console API and the admin API name a key's fields where they differ from the domain's names. */
const bodyNames: Partial<Record<KeyField, string>> = {
  budget: 'budget_usd',
  expiresAt: 'expires_at',
  allowedIps: 'allowed_ips',
  projectId: 'project_id',
}
const bodyName = (field: KeyField) => bodyNames[field] ?? field

/**
 * A new key's fields as values, once the `t` schema has checked their types. Only the text is read here (exact
 * money, an ISO-8601 time); whether the values are allowed is KeyService's to say (key-rules.ts), for every caller.
 */
export function readNewKey(body: Static<typeof newKeyBody>, accountId: number): NewKeyInput {
  return {
    accountId,
    name: body.name ?? null,
    models: body.models ?? null,
    rpm: body.rpm ?? null,
    tpm: body.tpm ?? null,
    concurrency: body.concurrency ?? null,
    budget: readBudget(body.budget_usd) ?? null,
    expiresAt: readExpiry(body.expires_at) ?? null,
    allowedIps: body.allowed_ips ?? null,
    projectId: body.project_id ?? null,
  }
}

/**
 * A key's changes as values: an absent field stays as it is; null (or an empty string for the budget, expiry and
 * name) clears it — no limit, every model, no budget, no expiry.
 */
export function readKeyChanges(body: Static<typeof keyChangesBody>): KeyChanges {
  const changes: KeyChanges = {}
  if (body.name !== undefined) changes.name = body.name
  if (body.models !== undefined) changes.models = body.models
  if (body.rpm !== undefined) changes.rpm = body.rpm
  if (body.tpm !== undefined) changes.tpm = body.tpm
  if (body.concurrency !== undefined) changes.concurrency = body.concurrency
  if (body.budget_usd !== undefined) changes.budget = readBudget(body.budget_usd)
  if (body.expires_at !== undefined) changes.expiresAt = readExpiry(body.expires_at)
  if (body.project_id !== undefined) changes.projectId = body.project_id
  if (body.allowed_ips !== undefined) changes.allowedIps = body.allowed_ips
  return changes
}

/** Undefined when absent; null when cleared (null or blank). */
function readBudget(text: string | null | undefined): number | null | undefined {
  if (text === undefined) return undefined
  const trimmed = text?.trim()
  return trimmed ? readUsd(trimmed, 'budget_usd') : null
}

function readExpiry(text: string | null | undefined): number | null | undefined {
  if (text === undefined) return undefined
  const trimmed = text?.trim()
  if (!trimmed) return null
  const expiresAt = Date.parse(trimmed)
  if (Number.isNaN(expiresAt)) throw invalidRequest(`Invalid value for 'expires_at': expected an ISO-8601 time.`, 'expires_at')
  return expiresAt
}

/** KeyService's refusal in the console API's words: a 400 naming the body's field. */
export function describeKeyInputError(error: KeyInputError): GatewayError {
  if (error.field === undefined) return invalidRequest(`Nothing to change: send at least one of ${keyFields.map(bodyName).join(', ')}.`)
  const field = bodyName(error.field)
  return invalidRequest(`Invalid value for '${field}': it ${error.rule}.`, field)
}
