import { and, eq, gte, isNull, sql } from 'drizzle-orm'
import type { AuditNote } from '../../domain/audit/records.ts'
import type { KeyRecord } from '../../domain/records.ts'
import type { KeyChanges, KeyRepository } from '../../domain/repositories.ts'
import { writeAudit } from './audit.ts'
import { apiKeys } from './schema.ts'
import type { SqliteDatabase } from './store.ts'

type KeyRow = typeof apiKeys.$inferSelect

function toRecord(row: KeyRow): KeyRecord {
  // `reserved` is the ledger's (budget holds in flight), not part of what a key is.
  const { reserved: _, ...key } = row
  return { ...key, models: fromJson(key.models), allowedIps: fromJson(key.allowedIps) }
}

/** The list columns (models, allowed addresses) hold JSON text; NULL is no list. */
const fromJson = (text: string | null) => (text === null ? null : (JSON.parse(text) as string[]))
const toJson = (list: string[] | null) => (list === null ? null : JSON.stringify(list))

/** The columns an update sets: only the fields given, the lists as their JSON text. */
function columnsOf(changes: KeyChanges) {
  const { models, allowedIps, ...rest } = changes
  const defined: Record<string, unknown> = Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined))
  if (models !== undefined) defined.models = toJson(models)
  if (allowedIps !== undefined) defined.allowedIps = toJson(allowedIps)
  return defined
}

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
        if (after) writeAudit(tx, audit?.(before && toRecord(before), toRecord(after)))
        return after !== undefined
      },
      { behavior: 'immediate' },
    )
  return {
    async insert(key, audit) {
      db.transaction(
        (tx) => {
          tx.insert(apiKeys)
            .values({ ...key, models: toJson(key.models), allowedIps: toJson(key.allowedIps) })
            .run()
          writeAudit(tx, audit?.(undefined, key))
        },
        { behavior: 'immediate' },
      )
    },
    async findById(id) {
      const row = db.select().from(apiKeys).where(eq(apiKeys.id, id)).get()
      return row && toRecord(row)
    },
    async findByHash(hash) {
      const row = db.select().from(apiKeys).where(eq(apiKeys.hash, hash)).get()
      return row && toRecord(row)
    },
    async list(accountId) {
      const query = db.select().from(apiKeys)
      const rows =
        accountId === undefined
          ? query.orderBy(apiKeys.createdAt).all()
          : query.where(eq(apiKeys.accountId, accountId)).orderBy(apiKeys.createdAt).all()
      return rows.map(toRecord)
    },
    async revoke(id, at, audit) {
      return changeLiveKey(id, { revokedAt: at, updatedAt: at }, audit)
    },
    async update(id, changes, at, audit) {
      return changeLiveKey(id, { ...columnsOf(changes), updatedAt: at }, audit)
    },
    async rotate(id, secret, at, audit) {
      return changeLiveKey(id, { hash: secret.hash, prefix: secret.prefix, updatedAt: at }, audit)
    },
    async changedSince(since) {
      return (changed ??= prepareChanged()).all({ since }).map(toRecord)
    },
  }
}
