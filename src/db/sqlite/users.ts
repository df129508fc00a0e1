import { eq } from 'drizzle-orm'
import type { AuditNote } from '../../domain/audit/records.ts'
import type { UserRecord } from '../../domain/records.ts'
import type { UserRepository } from '../../domain/repositories.ts'
import { writeAudit } from './audit.ts'
import { users } from './schema.ts'
import type { SqliteDatabase } from './store.ts'

export function createSqliteUsers(db: SqliteDatabase): UserRepository {
  /** Change one login's columns and record the change's audit row, in one transaction; undefined: no such login. */
  const change = (id: number, columns: Partial<typeof users.$inferInsert>, audit?: AuditNote<UserRecord>) =>
    db.transaction(
      (tx) => {
        const before = tx.select().from(users).where(eq(users.id, id)).get()
        const after = tx.update(users).set(columns).where(eq(users.id, id)).returning().get()
        if (after) writeAudit(tx, audit?.(before, after))
        return after
      },
      { behavior: 'immediate' },
    )
  return {
    async create(user, audit) {
      return db.transaction(
        (tx) => {
          const created = tx.insert(users).values(user).returning().get() as UserRecord
          writeAudit(tx, audit?.(undefined, created))
          return created
        },
        { behavior: 'immediate' },
      )
    },
    async findByName(name) {
      return db.select().from(users).where(eq(users.name, name)).get()
    },
    async findById(id) {
      return db.select().from(users).where(eq(users.id, id)).get()
    },
    async list() {
      return db.select().from(users).orderBy(users.name).all()
    },
    async delete(id, audit) {
      return db.transaction(
        (tx) => {
          const deleted = tx.delete(users).where(eq(users.id, id)).returning().get()
          if (deleted) writeAudit(tx, audit?.(deleted, undefined))
          return deleted !== undefined
        },
        { behavior: 'immediate' },
      )
    },
    async setPasswordHash(id, passwordHash, at, audit) {
      return change(id, { passwordHash, updatedAt: at }, audit) !== undefined
    },
    async update(id, changes, at, audit) {
      return change(id, { ...changes, updatedAt: at }, audit)
    },
  }
}
