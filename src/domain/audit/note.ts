import type { Actor } from '../actor.ts'
import type { AuditObject } from './objects.ts'
import type { AuditActor, AuditEntry, AuditFields, AuditNote, AuditObjectType } from './records.ts'

/** The part of an actor a row keeps. */
function auditActor(actor: Actor): AuditActor {
  return { kind: actor.kind, id: actor.id, label: actor.label, address: actor.address }
}

const same = (left: unknown, right: unknown) => JSON.stringify(left) === JSON.stringify(right)

/** Each side keeps only the fields that differ: an edit's row says what it changed, not everything the object holds. */
function changedFields(before: AuditFields, after: AuditFields): [AuditFields, AuditFields] {
  const was: AuditFields = {}
  const now: AuditFields = {}
  for (const name of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (same(before[name], after[name])) continue
    if (name in before) was[name] = before[name]!
    if (name in after) now[name] = after[name]!
  }
  return [was, now]
}

const orNull = (fields: AuditFields | null) => (fields && Object.keys(fields).length > 0 ? fields : null)

export interface ChangeDetail {
  at: number
  /** Added to the row's `after`: what is not a field of the object (a credit's amount and note, a sign-in's method). */
  detail?: AuditFields
  /** The field of a secret the change replaced (`secret`, `password`): recorded as `"rotated"`, never as its value. */
  rotated?: string
}

/**
 * The note a repository records a change of `object` with (AuditNote): a new object's fields as `after`, a deleted
 * one's as `before`, an edited one's changed fields on both sides. The object is read inside the change's transaction,
 * so the row says exactly what that transaction did.
 */
export function auditChange<Row>(actor: Actor, action: string, object: AuditObject<Row>, change: ChangeDetail): AuditNote<Row> {
  return (before, after) => {
    const subject = (after ?? before)!
    let was = before === undefined ? null : object.fields(before)
    let now = after === undefined ? null : object.fields(after)
    if (was && now) [was, now] = changedFields(was, now)
    if (change.rotated) now = { ...now, [change.rotated]: 'rotated' }
    if (change.detail) now = { ...now, ...change.detail }
    return {
      at: change.at,
      action,
      objectType: object.type,
      objectId: object.id(subject),
      accountId: object.accountId(subject),
      actor: auditActor(actor),
      before: orNull(was),
      after: orNull(now),
    }
  }
}

/** A row of its own, for what changes nothing else stored: a failed sign-in, a config reload, an unlocked sign-in. */
export function auditEvent(
  actor: Actor,
  action: string,
  object: { type: AuditObjectType; id: string | null; accountId: number | null },
  at: number,
  after: AuditFields | null,
  before: AuditFields | null = null,
): AuditEntry {
  return {
    at,
    action,
    objectType: object.type,
    objectId: object.id,
    accountId: object.accountId,
    actor: auditActor(actor),
    before: orNull(before),
    after: orNull(after),
  }
}
