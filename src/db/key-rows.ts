import type { KeyRecord } from '../domain/records.ts'
import { listOf, textOf } from './list-columns.ts'

/**
 * The api_keys row as both dialects' Drizzle tables read and write it: the list columns (models, allowed addresses)
 * hold JSON text, NULL being no list, and `reserved` is the ledger's (budget holds in flight), not part of what a key is.
 */
type KeyRow = Omit<KeyRecord, 'models' | 'allowedIps'> & { models: string | null; allowedIps: string | null; reserved: unknown }

export function keyOf(row: KeyRow): KeyRecord {
  const { reserved: _, ...key } = row
  return { ...key, models: listOf(key.models), allowedIps: listOf(key.allowedIps) }
}

/** The columns a new key is inserted with: the lists as their JSON text. */
export function keyValues<Key extends KeyRecord>(key: Key) {
  return { ...key, models: textOf(key.models), allowedIps: textOf(key.allowedIps) }
}
