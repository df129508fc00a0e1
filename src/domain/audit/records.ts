import type { Actor } from '../actor.ts'

/**
 * The audit log's rows: who changed what, when, from where, and the fields before and after. Times are epoch
 * milliseconds. A row is written in the transaction of the change it records (a change that fails leaves none) and
 * is never edited; only retention (`retention.audit_days`) ever deletes one.
 */

/** A field's value as recorded: money as exact decimal strings, times as ISO-8601; never a secret or a hash. */
export type AuditValue = string | number | boolean | null | string[]
export type AuditFields = Record<string, AuditValue>

/**
 * What kind of object a row is about. Another kind (a project, a budget, a webhook) is one more word here and its
 * description in objects.ts.
 */
export type AuditObjectType = 'account' | 'key' | 'user' | 'admin-token' | 'task' | 'config' | 'project' | 'budget' | 'webhook'

/** Who made the change, as a row keeps it: the actor's kind, id, label and address (domain/actor.ts). */
export type AuditActor = Pick<Actor, 'kind' | 'id' | 'label' | 'address'>

export interface AuditEntry {
  at: number
  /** `OBJECT.VERB`: `key.rotate`, `account.credit`, `user.sign-in-failed`, `config.reload`… (README "Audit log" lists them). */
  action: string
  objectType: AuditObjectType
  /** The object's id; null when there is none (a failed sign-in under a name no login has). */
  objectId: string | null
  /** The account the object belongs to, so an account's admin reads its own rows; null: the gateway's (admin tokens, config, admins). */
  accountId: number | null
  actor: AuditActor
  /** The fields that changed, as they were (null: the object is new, or the row records an event). */
  before: AuditFields | null
  /** The fields that changed, as they are now (null: the object is gone). */
  after: AuditFields | null
}

export interface AuditRow extends AuditEntry {
  id: number
}

/**
 * How a repository records a change in its transaction: it reads the object as it was and as it is there, and this
 * turns them into the row (domain/audit/note.ts builds one). Called synchronously inside the transaction.
 */
export type AuditNote<Row> = (before: Row | undefined, after: Row | undefined) => AuditEntry

export interface AuditFilter {
  accountId?: number
  /** The actor's label (`alice`, `admin-token:deploy`, `cli:root`) or id, exactly. */
  actor?: string
  objectType?: string
  objectId?: string
  action?: string
  since?: number
  until?: number
}

/** Keyset paging: the next page holds rows strictly older than this (at, id) pair. */
export interface AuditCursor {
  at: number
  id: number
}

export interface AuditRepository {
  /** One row on its own: a change that writes nothing else (a failed sign-in, a config reload, an unlocked sign-in). */
  record(entry: AuditEntry): Promise<void>
  /** Newest first, `limit` rows older than `before`. */
  list(filter: AuditFilter, limit: number, before?: AuditCursor): Promise<AuditRow[]>
  /** Delete up to `limit` of the rows older than `cutoff`, returning how many: retention, the only way a row leaves. */
  prune(cutoff: number, limit: number): Promise<number>
}
