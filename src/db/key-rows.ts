import type { KeyRecord } from '../domain/records.ts'
import type { KeyChanges } from '../domain/repositories.ts'

/**
 * The api_keys row as both dialects' Drizzle tables read and write it: the list columns (models, allowed addresses)
 * hold JSON text, NULL being no list, and `reserved` is the ledger's (budget holds in flight), not part of what a key is.
 */
type KeyRow = Omit<KeyRecord, 'models' | 'allowedIps'> & { models: string | null; allowedIps: string | null; reserved: unknown }

const fromJson = (text: string | null) => (text === null ? null : (JSON.parse(text) as string[]))
const toJson = (list: string[] | null) => (list === null ? null : JSON.stringify(list))

export function keyOf(row: KeyRow): KeyRecord {
  const { reserved: _, ...key } = row
  return { ...key, models: fromJson(key.models), allowedIps: fromJson(key.allowedIps) }
}

/** The columns a new key is inserted with: the lists as their JSON text. */
export function keyValues<Key extends KeyRecord>(key: Key) {
  return { ...key, models: toJson(key.models), allowedIps: toJson(key.allowedIps) }
}

/** The columns an update sets: only the fields given, the lists as their JSON text. */
export function keyColumns(changes: KeyChanges) {
  const { models, allowedIps, ...rest } = changes
  const defined: Record<string, unknown> = Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined))
  if (models !== undefined) defined.models = toJson(models)
  if (allowedIps !== undefined) defined.allowedIps = toJson(allowedIps)
  return defined
}
