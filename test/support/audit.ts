import type { AuditRow } from '../../src/domain/audit/records.ts'
import type { Store } from '../../src/domain/repositories.ts'

/** Every audit row, oldest first, read through the store's own reader. */
export async function allAuditRows(store: Store): Promise<AuditRow[]> {
  return (await store.audit.list({}, 1_000_000)).reverse()
}

/**
 * The rows `action` added, in the order they were written: what one change (or one refused change) left in the audit
 * log. Found by id, not time: a test that moves the clock writes rows older than the ones before them.
 */
export async function auditRowsOf(store: Store, action: () => Promise<unknown>): Promise<AuditRow[]> {
  const mark = Math.max(0, ...(await store.audit.list({}, 1_000_000)).map((row) => row.id))
  await action()
  return (await store.audit.list({}, 1_000_000)).filter((row) => row.id > mark).sort((a, b) => a.id - b.id)
}
