import type { AuditRow } from '../../src/domain/audit/records.ts'
import type { Store } from '../../src/domain/repositories.ts'

/** Every audit row, oldest first, read through the store's own reader. */
export async function allAuditRows(store: Store): Promise<AuditRow[]> {
  return (await store.audit.list({}, 1_000_000)).reverse()
}

/** The rows `action` added, oldest first: what one change (or one refused change) left in the audit log. */
export async function auditRowsOf(store: Store, action: () => Promise<unknown>): Promise<AuditRow[]> {
  const [latest] = await store.audit.list({}, 1)
  const mark = latest?.id ?? 0
  await action()
  return (await store.audit.list({}, 1000)).filter((row) => row.id > mark).reverse()
}
