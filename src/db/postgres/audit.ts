import type { SQL as Client } from 'bun'
import { and, desc, inArray, lt, sql } from 'drizzle-orm'
import type { AuditEntry, AuditRepository } from '../../domain/audit/records.ts'
import { auditColumns, auditConditions, auditRowOf, auditValues, insertAuditSql } from '../audit-rows.ts'
import { auditLog } from './schema.ts'
import type { PostgresDatabase } from './store.ts'

/**
 * Record an audit row as part of the transaction it is called in: the way every change records itself
 * (domain/audit). Call it with the change's transaction, after the change: the row commits with it or not at all.
 * Undefined records nothing.
 *
 * ```ts
 * await db.transaction(async (tx) => {
 *   const [after] = await tx.update(projects).set(changes).where(eq(projects.id, id)).returning()
 *   await writeAudit(tx, audit?.(before, after))
 * })
 * ```
 */
export async function writeAudit(tx: Pick<PostgresDatabase, 'insert'>, entry: AuditEntry | undefined): Promise<void> {
  if (entry) await tx.insert(auditLog).values(auditColumns(entry))
}

/** writeAudit for code on Bun's SQL client (tasks, the ledger), inside its `client.begin(async (tx) => …)`. */
export async function writeAuditRaw(tx: Pick<Client, 'unsafe'>, entry: AuditEntry | undefined): Promise<void> {
  let index = 0
  if (entry)
    await tx.unsafe(
      insertAuditSql.replace(/\?/g, () => `$${++index}`),
      auditValues(entry),
    )
}

export function createPostgresAudit(db: PostgresDatabase): AuditRepository {
  return {
    async record(entry) {
      await writeAudit(db, entry)
    },
    async list(filter, limit, before) {
      const where = auditConditions(auditLog, filter)
      if (before) where.push(sql`(${auditLog.at}, ${auditLog.id}) < (${before.at}, ${before.id})`)
      const rows = await db
        .select()
        .from(auditLog)
        .where(and(...where))
        .orderBy(desc(auditLog.at), desc(auditLog.id))
        .limit(limit)
      return rows.map(auditRowOf)
    },
    async prune(cutoff, limit) {
      const oldest = db
        .select({ id: auditLog.id })
        .from(auditLog)
        .where(lt(auditLog.at, cutoff))
        .orderBy(auditLog.at, auditLog.id)
        .limit(limit)
      const deleted = await db.delete(auditLog).where(inArray(auditLog.id, oldest)).returning({ id: auditLog.id })
      return deleted.length
    },
  }
}
