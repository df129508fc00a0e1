import { randomBase62 } from '../core/ids.ts'
import { type Actor, systemActor } from './actor.ts'
import { auditChange } from './audit/note.ts'
import { adminTokenObject } from './audit/objects.ts'
import { DomainError } from './errors.ts'
import { hashKey } from './keys.ts'
import { requireValidName } from './names.ts'
import type { AdminScope, AdminTokenRecord } from './records.ts'
import type { AdminTokenRepository } from './repositories.ts'

/** Distinct from API keys (`tg-`): the admin API and the model endpoints can each refuse the other's at a glance. */
export const adminTokenPrefix = 'tga-'
const secretLength = 40 // ≈ 238 bits, like an API key: a fast hash (SHA-256) is enough
const shownPrefixLength = adminTokenPrefix.length + 8
/** last_used_at is a hint for operators; writing it on every call of a busy script would cost a write each. */
const touchEveryMs = 60_000

export interface CreatedAdminToken {
  record: AdminTokenRecord
  /** The only time the secret exists outside the caller's hands. */
  secret: string
}

export function readAdminScope(value: string | undefined): AdminScope {
  if (value === 'read' || value === 'full') return value
  throw new DomainError('invalid', `the scope must be "read" or "full"${value === undefined ? '' : `, got "${value}"`}`)
}

export async function createAdminToken(
  repository: AdminTokenRepository,
  name: string,
  scope: AdminScope,
  actor: Actor = systemActor(),
  now = Date.now(),
): Promise<CreatedAdminToken> {
  requireValidName('token name', name)
  const secret = adminTokenPrefix + randomBase62(secretLength)
  const record: AdminTokenRecord = {
    id: `adm_${randomBase62(12)}`,
    name,
    scope,
    prefix: secret.slice(0, shownPrefixLength),
    hash: hashKey(secret),
    createdAt: now,
    lastUsedAt: null,
    revokedAt: null,
  }
  await repository.insert(record, auditChange(actor, 'admin-token.create', adminTokenObject, { at: now }))
  return { record, secret }
}

export function listAdminTokens(repository: AdminTokenRepository): Promise<AdminTokenRecord[]> {
  return repository.list()
}

export async function revokeAdminToken(
  repository: AdminTokenRepository,
  id: string,
  actor: Actor = systemActor(),
  now = Date.now(),
): Promise<{ token: AdminTokenRecord; changed: boolean }> {
  if (!(await repository.findById(id))) throw new DomainError('not_found', `admin token ${id} does not exist`)
  const changed = await repository.revoke(id, now, auditChange(actor, 'admin-token.revoke', adminTokenObject, { at: now }))
  return { token: (await repository.findById(id))!, changed }
}

/** The live token behind a secret, or undefined when there is none (unknown or revoked): callers answer 401 alike. */
export async function authenticateAdminToken(
  repository: AdminTokenRepository,
  secret: string,
  now = Date.now(),
): Promise<AdminTokenRecord | undefined> {
  if (!secret.startsWith(adminTokenPrefix)) return undefined
  const token = await repository.findByHash(hashKey(secret))
  if (!token || token.revokedAt !== null) return undefined
  if (token.lastUsedAt === null || now - token.lastUsedAt >= touchEveryMs) {
    await repository.touch(token.id, now)
    token.lastUsedAt = now
  }
  return token
}

export function allowsWrites(token: AdminTokenRecord): boolean {
  return token.scope === 'full'
}
