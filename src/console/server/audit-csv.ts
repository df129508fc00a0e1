import { auditJson } from '../../domain/audit/present.ts'
import type { AuditFilter, AuditRow } from '../../domain/audit/records.ts'
import type { Services } from '../../edge/services.ts'
import { pagedCsv } from './csv.ts'

const columns = [
  'at',
  'action',
  'object_type',
  'object_id',
  'account_id',
  'actor_kind',
  'actor_id',
  'actor',
  'address',
  'before',
  'after',
] as const
const pageRows = 1000

function cellsOf(row: AuditRow): unknown[] {
  const json = auditJson(row)
  return [
    json.at,
    json.action,
    json.object_type,
    json.object_id,
    json.account_id,
    json.actor.kind,
    json.actor.id,
    json.actor.name,
    json.actor.address,
    json.before && JSON.stringify(json.before),
    json.after && JSON.stringify(json.after),
  ]
}

/**
 * The audit rows matching a filter as CSV, newest first, a page at a time; the fields before and after are one JSON
 * cell each. Every cell is formula-safe (csv.ts): one starting with `=`, `+`, `-`, `@`, a tab or a carriage return
 * gets a leading quote mark.
 */
export function auditCsv(services: Services, filter: AuditFilter): ReadableStream<Uint8Array> {
  const readPage = (after: AuditRow | undefined) => services.store.audit.list(filter, pageRows, after && { at: after.at, id: after.id })
  return pagedCsv(columns, pageRows, readPage, cellsOf)
}
