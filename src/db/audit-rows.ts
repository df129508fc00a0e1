import { type AnyColumn, eq, gte, lt, or, type SQL } from 'drizzle-orm'
import type { AuditEntry, AuditFields, AuditFilter, AuditRow } from '../domain/audit/records.ts'

/** An audit row's columns as both dialects store them (drizzle's names); the fields as JSON text. */
export function auditColumns(entry: AuditEntry) {
  return {
    at: entry.at,
    action: entry.action,
    objectType: entry.objectType,
    objectId: entry.objectId,
    accountId: entry.accountId,
    actorKind: entry.actor.kind,
    actorId: entry.actor.id,
    actorLabel: entry.actor.label,
    address: entry.actor.address,
    before: entry.before === null ? null : JSON.stringify(entry.before),
    after: entry.after === null ? null : JSON.stringify(entry.after),
  }
}

/** The same columns in the order of `insertAuditSql`, for code on a raw connection (tasks). */
export function auditValues(entry: AuditEntry): (string | number | null)[] {
  const columns = auditColumns(entry)
  return [
    columns.at,
    columns.action,
    columns.objectType,
    columns.objectId,
    columns.accountId,
    columns.actorKind,
    columns.actorId,
    columns.actorLabel,
    columns.address,
    columns.before,
    columns.after,
  ]
}

export const insertAuditSql =
  'INSERT INTO audit_log (at, action, object_type, object_id, account_id, actor_kind, actor_id, actor_label, address, before, after) ' +
  'VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)'

/** A row as read back: the columns of auditColumns, kinds as plain text. */
type Stored = Omit<ReturnType<typeof auditColumns>, 'objectType' | 'actorKind'> & { id: number; objectType: string; actorKind: string }

const parse = (text: string | null) => (text === null ? null : (JSON.parse(text) as AuditFields))

export function auditRowOf(row: Stored): AuditRow {
  return {
    id: Number(row.id),
    at: Number(row.at),
    action: row.action,
    objectType: row.objectType as AuditRow['objectType'],
    objectId: row.objectId,
    accountId: row.accountId === null ? null : Number(row.accountId),
    actor: { kind: row.actorKind as AuditRow['actor']['kind'], id: row.actorId, label: row.actorLabel, address: row.address },
    before: parse(row.before),
    after: parse(row.after),
  }
}

/** The audit table's columns a filter reads, of either dialect's table. */
type FilterColumns = Record<'at' | 'accountId' | 'actorLabel' | 'actorId' | 'objectType' | 'objectId' | 'action', AnyColumn>

/** The WHERE of a filtered read, for either dialect's table: each filter given narrows it. */
export function auditConditions(table: FilterColumns, filter: AuditFilter): SQL[] {
  const found: SQL[] = []
  if (filter.accountId !== undefined) found.push(eq(table.accountId, filter.accountId))
  if (filter.actor !== undefined) found.push(or(eq(table.actorLabel, filter.actor), eq(table.actorId, filter.actor))!)
  if (filter.objectType !== undefined) found.push(eq(table.objectType, filter.objectType))
  if (filter.objectId !== undefined) found.push(eq(table.objectId, filter.objectId))
  if (filter.action !== undefined) found.push(eq(table.action, filter.action))
  if (filter.since !== undefined) found.push(gte(table.at, filter.since))
  if (filter.until !== undefined) found.push(lt(table.at, filter.until))
  return found
}
