import type { Database } from 'bun:sqlite'
import { and, desc, inArray, lt, sql } from 'drizzle-orm'
import type { AuditEntry, AuditRepository } from '../../domain/audit/records.ts'
import { auditColumns, auditConditions, auditRowOf, auditValues, insertAuditSql } from '../audit-rows.ts'
import { auditLog } from './schema.ts'
import type { SqliteDatabase } from './store.ts'

/**
 * Record an audit row as part of the transaction it is called in: the way every change records itself
 * (domain/audit). Call it inside the change's transaction, after the change: the row commits with it or not at all.
 * `db` is the store's drizzle handle or the transaction's `tx` (one connection either way); undefined records nothing.
 *
 * ```ts
 * db.transaction((tx) => {
 *   const after = tx.update(projects).set(changes).where(eq(projects.id, id)).returning().get()
 *   writeAudit(tx, audit?.(before, after))
 * }, { behavior: 'immediate' })
 * ```
 */
export function writeAudit(db: Pick<SqliteDatabase, 'insert'>, entry: AuditEntry | undefined): void {
  if (entry) db.insert(auditLog).values(auditColumns(entry)).run()
}

/** writeAudit for code on the raw bun:sqlite connection (tasks, the ledger), inside its `client.transaction(…)`. */
export function writeAuditRaw(client: Database, entry: AuditEntry | undefined): void {
  if (entry) client.query(insertAuditSql).run(...auditValues(entry))
}

export function createSqliteAudit(db: SqliteDatabase): AuditRepository {
  return {
    async record(entry) {
      writeAudit(db, entry)
    },
    async list(filter, limit, before) {
      const where = auditConditions(auditLog, filter)
      if (before) where.push(sql`(${auditLog.at}, ${auditLog.id}) < (${before.at}, ${before.id})`)
      const rows = db
        .select()
        .from(auditLog)
        .where(and(...where))
        .orderBy(desc(auditLog.at), desc(auditLog.id))
        .limit(limit)
        .all()
      return rows.map(auditRowOf)
    },
    async prune(cutoff, limit) {
      const oldest = db
        .select({ id: auditLog.id })
        .from(auditLog)
        .where(lt(auditLog.at, cutoff))
        .orderBy(auditLog.at, auditLog.id)
        .limit(limit)
        .all()
      if (oldest.length === 0) return 0
      return db
        .delete(auditLog)
        .where(
          inArray(
            auditLog.id,
            oldest.map((row) => row.id),
          ),
        )
        .returning({ id: auditLog.id })
        .all().length
    },
  }
}
