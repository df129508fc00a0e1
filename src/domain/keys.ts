import type { KeyRecord } from './records.ts'
import type { KeyChanges, KeyRepository } from './repositories.ts'
import { DomainError } from './errors.ts'
import { randomBase62 } from '../core/ids.ts'
import type { AuditNote } from './audit/records.ts'

/** Every secret starts with this, so it is recognisable in a config file or a leaked-secret scanner. */
const keyPrefix = 'tg-'
const secretLength = 40 // 40 base62 characters ≈ 238 bits of randomness
const shownPrefixLength = keyPrefix.length + 8

/** Secrets are long and random, so a fast hash is enough: nobody can brute-force 238 bits. */
export function hashKey(secret: string): string {
  // Bun.SHA256.hash: the same digest as a CryptoHasher, at ~0.2 µs against ~0.5 (it runs on every request).
  return Bun.SHA256.hash(secret, 'hex') as string
}

/** A new key: its account, and the same fields a key's changes may set (KeyChanges). */
export interface NewKeyInput extends KeyChanges {
  accountId: number
}

export interface CreatedKey {
  record: KeyRecord
  /** The only time the secret exists outside the caller's hands. */
  secret: string
}

/** A fresh secret and what is stored of it. */
function newSecret(): { secret: string; prefix: string; hash: string } {
  const secret = keyPrefix + randomBase62(secretLength)
  return { secret, prefix: secret.slice(0, shownPrefixLength), hash: hashKey(secret) }
}

const distinctModels = (models: string[] | null | undefined) => (models && models.length > 0 ? [...new Set(models)] : null)

/**
 * Store a new key as given. A change to stored keys only (tests and scripts set keys up with it, an expired one too):
 * KeyService.create is what callers use, so the fields are checked and the key caches hear of it.
 */
export async function createKey(
  repository: KeyRepository,
  input: NewKeyInput,
  now = Date.now(),
  audit?: AuditNote<KeyRecord>,
): Promise<CreatedKey> {
  const { secret, prefix, hash } = newSecret()
  const record: KeyRecord = {
    id: `key_${randomBase62(12)}`,
    accountId: input.accountId,
    name: input.name ?? null,
    prefix,
    hash,
    models: distinctModels(input.models),
    createdAt: now,
    updatedAt: now,
    revokedAt: null,
    lastUsedAt: null,
    rpm: input.rpm ?? null,
    tpm: input.tpm ?? null,
    concurrency: input.concurrency ?? null,
    budget: input.budget ?? null,
    expiresAt: input.expiresAt ?? null,
    spent: 0,
    projectId: input.projectId ?? null,
    allowedIps: input.allowedIps ?? null,
  }
  await repository.insert(record, audit)
  return { record, secret }
}

export type KeyStatus = 'active' | 'revoked' | 'expired'

export function keyStatus(key: KeyRecord, now = Date.now()): KeyStatus {
  if (key.revokedAt !== null) return 'revoked'
  if (key.expiresAt !== null && key.expiresAt <= now) return 'expired'
  return 'active'
}

/** A key's own model list, within its project's: a key's list can only narrow its project's. */
export function keyAllowsModel(key: KeyRecord, modelId: string): boolean {
  return (key.models === null || key.models.includes(modelId)) && (!key.project?.models || key.project.models.includes(modelId))
}

export interface RevokedKey {
  key: KeyRecord
  /** False when the key had already been revoked. */
  changed: boolean
}

/** Every key, or one account's, oldest first. */
export function listKeys(repository: KeyRepository, accountId?: number): Promise<KeyRecord[]> {
  return repository.list(accountId)
}

/** A change must be newer than the key as read: key caches keep the newer of two records (key-cache.ts). */
const after = (key: KeyRecord, now: number) => Math.max(now, key.updatedAt + 1)

export async function requireKey(repository: KeyRepository, id: string): Promise<KeyRecord> {
  const key = await repository.findById(id)
  if (!key) throw new DomainError('not_found', `key ${id} does not exist`)
  return key
}

/** A revoked key stays as it was revoked: changing it is a conflict with its state (409), not a malformed request. */
const revokedConflict = (id: string) => new DomainError('conflict', `key ${id} is revoked; create a new one instead`)

export async function requireLiveKey(repository: KeyRepository, id: string): Promise<KeyRecord> {
  const key = await requireKey(repository, id)
  if (key.revokedAt !== null) throw revokedConflict(id)
  return key
}

/**
 * Change a key's limits, models, budget, expiry or name; fields left undefined stay as they are, null clears one.
 * A revoked key stays revoked and unchanged. A change to stored keys only: KeyService.edit checks the fields first
 * and tells the key caches.
 */
export async function updateKey(repository: KeyRepository, id: string, changes: KeyChanges, now = Date.now()): Promise<KeyRecord> {
  return changeKey(repository, await requireLiveKey(repository, id), changes, now)
}

/** updateKey's write, for a key already read (`key`, as it was before). */
export async function changeKey(
  repository: KeyRepository,
  key: KeyRecord,
  changes: KeyChanges,
  now: number,
  audit?: AuditNote<KeyRecord>,
): Promise<KeyRecord> {
  const stored = { ...changes, ...(changes.models !== undefined && { models: distinctModels(changes.models) }) }
  if (!(await repository.update(key.id, stored, after(key, now), audit))) throw revokedConflict(key.id)
  return (await repository.findById(key.id))!
}

/**
 * A new secret for the same key: its ID, limits, spend and usage history stay, and the old secret stops working.
 * A change to stored keys only: KeyService.rotate tells the key caches, which forget the old secret's hash at once.
 */
export async function rotateKey(repository: KeyRepository, id: string, now = Date.now()): Promise<CreatedKey> {
  return replaceSecret(repository, await requireLiveKey(repository, id), now)
}

/** rotateKey's write, for a key already read (`key`, as it was before). */
export async function replaceSecret(
  repository: KeyRepository,
  key: KeyRecord,
  now: number,
  audit?: AuditNote<KeyRecord>,
): Promise<CreatedKey> {
  const { secret, prefix, hash } = newSecret()
  if (!(await repository.rotate(key.id, { hash, prefix }, after(key, now), audit))) throw revokedConflict(key.id)
  return { record: (await repository.findById(key.id))!, secret }
}
