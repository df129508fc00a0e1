import { auditJson } from '../../domain/audit/present.ts'
import type { AuditCursor, AuditFilter, AuditRow } from '../../domain/audit/records.ts'
import type { Services } from '../../edge/services.ts'
import { field } from './request-csv.ts'

const columns = ['at', 'action', 'object_type', 'object_id', 'account_id', 'actor_kind', 'actor_id', 'actor', 'address', 'before', 'after'] as const
const pageRows = 1000

function cellsOf(row: AuditRow): Record<(typeof columns)[number], unknown> {
  const json = auditJson(row)
  return {
    at: json.at, action: json.action, object_type: json.object_type, object_id: json.object_id, account_id: json.account_id,
    actor_kind: json.actor.kind, actor_id: json.actor.id, actor: json.actor.name, address: json.actor.address,
    before: json.before && JSON.stringify(json.before), after: json.after && JSON.stringify(json.after),
  }
}

/**
 * The audit rows matching a filter as CSV (RFC 4180, header row first), newest first, a page at a time. Every text
 * cell goes through the request log's `field`: one a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, a tab or
 * a carriage return first) gets a leading quote mark. The fields before and after are one JSON cell each.
 */
export function auditCsv(services: Services, filter: AuditFilter): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  let cursor: AuditCursor | undefined
  let started = false
  let done = false
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!started) {
        started = true
        controller.enqueue(encoder.encode(columns.join(',') + '\r\n'))
        return
      }
      if (done) return controller.close()
      const rows = await services.store.audit.list(filter, pageRows, cursor)
      if (rows.length < pageRows) done = true
      const last = rows.at(-1)
      if (last) cursor = { at: last.at, id: last.id }
      const text = rows.map((row) => {
        const cells = cellsOf(row)
        return columns.map((column) => field(cells[column])).join(',') + '\r\n'
      }).join('')
      if (text) controller.enqueue(encoder.encode(text))
      if (done) controller.close()
    },
  })
}
