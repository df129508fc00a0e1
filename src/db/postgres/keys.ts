import { and, eq, gte, isNull, sql } from 'drizzle-orm'
import type { AuditNote } from '../../domain/audit/records.ts'
import type { KeyRecord } from '../../domain/records.ts'
import type { KeyRepository } from '../../domain/repositories.ts'
import { keyOf, keyValues } from '../key-rows.ts'
import { changedColumns } from '../list-columns.ts'
import { writeAudit } from './audit.ts'
import { apiKeys } from './schema.ts'
import type { PostgresDatabase } from './store.ts'

export function createPostgresKeys(db: PostgresDatabase): KeyRepository {
  // Polled every 500 ms by every instance's key cache: the query is built once, not per poll (sqlite/keys.ts).
  let changed: ReturnType<typeof prepareChanged> | undefined
  const prepareChanged = () =>
    db
      .select()
      .from(apiKeys)
      .where(gte(apiKeys.updatedAt, sql.placeholder('since')))
      .prepare('changed_keys')
  /** Set columns of a key not revoked, and record the change's audit row, in one transaction; false: revoked or missing. */
  const changeLiveKey = (id: string, columns: Partial<typeof apiKeys.$inferInsert>, audit?: AuditNote<KeyRecord>) =>
    db.transaction(async (tx) => {
      // Locked until the commit, so "before" is the key this change changed.
      const [before] = await tx.select().from(apiKeys).where(eq(apiKeys.id, id)).for('update')
      const [after] = await tx
        .update(apiKeys)
        .set(columns)
        .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
        .returning()
      if (after) await writeAudit(tx, audit?.(before && keyOf(before), keyOf(after)))
      return after !== undefined
    })
  return {
    async insert(key, audit) {
      await db.transaction(async (tx) => {
        await tx.insert(apiKeys).values(keyValues(key))
        await writeAudit(tx, audit?.(undefined, key))
      })
    },
    async findById(id) {
      const [row] = await db.select().from(apiKeys).where(eq(apiKeys.id, id))
      return row && keyOf(row)
    },
    async findByHash(hash) {
      const [row] = await db.select().from(apiKeys).where(eq(apiKeys.hash, hash))
      return row && keyOf(row)
    },
    async list(accountId) {
      const query = db.select().from(apiKeys)
      const rows =
        accountId === undefined
          ? await query.orderBy(apiKeys.createdAt)
          : await query.where(eq(apiKeys.accountId, accountId)).orderBy(apiKeys.createdAt)
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
      return (await (changed ??= prepareChanged()).execute({ since })).map(keyOf)
    },
  }
}
