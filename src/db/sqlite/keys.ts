import { and, eq, gte, isNull, sql } from 'drizzle-orm'
import type { AuditNote } from '../../domain/audit/records.ts'
import type { KeyRecord } from '../../domain/records.ts'
import type { KeyRepository } from '../../domain/repositories.ts'
import { keyOf, keyValues } from '../key-rows.ts'
import { changedColumns } from '../list-columns.ts'
import { writeAudit } from './audit.ts'
import { apiKeys } from './schema.ts'
import type { SqliteDatabase } from './store.ts'

export function createSqliteKeys(db: SqliteDatabase): KeyRepository {
  // The key cache asks every 500 ms, on every instance: built and prepared once (on first use, after the migrations),
  // not per poll — building the query each time cost ~1 ms of CPU, about a third of an idle gateway's (2026-11-26).
  let changed: ReturnType<typeof prepareChanged> | undefined
  const prepareChanged = () =>
    db
      .select()
      .from(apiKeys)
      .where(gte(apiKeys.updatedAt, sql.placeholder('since')))
      .prepare()
  /** Set columns of a key not revoked, and record the change's audit row, in one transaction; false: revoked or missing. */
  const changeLiveKey = (id: string, columns: Partial<typeof apiKeys.$inferInsert>, audit?: AuditNote<KeyRecord>) =>
    db.transaction(
      (tx) => {
        const before = tx.select().from(apiKeys).where(eq(apiKeys.id, id)).get()
        const after = tx
          .update(apiKeys)
          .set(columns)
          .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
          .returning()
          .get()
        if (after) writeAudit(tx, audit?.(before && keyOf(before), keyOf(after)))
        return after !== undefined
      },
      { behavior: 'immediate' },
    )
  return {
    async insert(key, audit) {
      db.transaction(
        (tx) => {
          tx.insert(apiKeys).values(keyValues(key)).run()
          writeAudit(tx, audit?.(undefined, key))
        },
        { behavior: 'immediate' },
      )
    },
    async findById(id) {
      const row = db.select().from(apiKeys).where(eq(apiKeys.id, id)).get()
      return row && keyOf(row)
    },
    async findByHash(hash) {
      const row = db.select().from(apiKeys).where(eq(apiKeys.hash, hash)).get()
      return row && keyOf(row)
    },
    async list(accountId) {
      const query = db.select().from(apiKeys)
      const rows =
        accountId === undefined
          ? query.orderBy(apiKeys.createdAt).all()
          : query.where(eq(apiKeys.accountId, accountId)).orderBy(apiKeys.createdAt).all()
      return rows.map(keyOf)
    },
    async revoke(id, at, audit) {
      return changeLiveKey(id, { revokedAt: at, updatedAt: at }, audit)
    },
    async update(id, changes, at, audit) {
      return changeLiveKey(id, { ...changedColumns(changes), updatedAt: at }, audit)
    },
    async rotate(id, secret, at, audit) {
      return changeLiveKey(id, { hash: secret.hash, prefix: secret.prefix, updatedAt: at }, audit)
    },
    async changedSince(since) {
      return (changed ??= prepareChanged()).all({ since }).map(keyOf)
    },
  }
}
