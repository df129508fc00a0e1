import type { AuditRow } from './records.ts'

/** An audit row as the console, the admin API and `tollgate audit --json` show it. */
export function auditJson(row: AuditRow) {
  return {
    id: row.id,
    at: new Date(row.at).toISOString(),
    action: row.action,
    object_type: row.objectType,
    object_id: row.objectId,
    account_id: row.accountId,
    actor: { kind: row.actor.kind, id: row.actor.id, name: row.actor.label, address: row.actor.address },
    before: row.before,
    after: row.after,
  }
}
