import { eq } from 'drizzle-orm'
import type { AuditNote } from '../../domain/audit/records.ts'
import type { UserRecord } from '../../domain/records.ts'
import type { UserRepository } from '../../domain/repositories.ts'
import { writeAudit } from './audit.ts'
import { users } from './schema.ts'
import type { PostgresDatabase } from './store.ts'

export function createPostgresUsers(db: PostgresDatabase): UserRepository {
  /** Change one login's columns and record the change's audit row, in one transaction; undefined: no such login. */
  const change = (id: number, columns: Partial<typeof users.$inferInsert>, audit?: AuditNote<UserRecord>) =>
    db.transaction(async (tx) => {
      const [before] = await tx.select().from(users).where(eq(users.id, id)).for('update')
      const [after] = await tx.update(users).set(columns).where(eq(users.id, id)).returning()
      if (after) await writeAudit(tx, audit?.(before as UserRecord | undefined, after as UserRecord))
      return after as UserRecord | undefined
    })
  return {
    async create(user, audit) {
      return db.transaction(async (tx) => {
        const [created] = await tx.insert(users).values(user).returning()
        await writeAudit(tx, audit?.(undefined, created as UserRecord))
        return created as UserRecord
      })
    },
    async findByName(name) {
      const [user] = await db.select().from(users).where(eq(users.name, name))
      return user
    },
    async findById(id) {
      const [user] = await db.select().from(users).where(eq(users.id, id))
      return user
    },
    async list() {
      return db.select().from(users).orderBy(users.name)
    },
    async delete(id, audit) {
      return db.transaction(async (tx) => {
        const [deleted] = await tx.delete(users).where(eq(users.id, id)).returning()
        if (deleted) await writeAudit(tx, audit?.(deleted as UserRecord, undefined))
        return deleted !== undefined
      })
    },
    async setPasswordHash(id, passwordHash, at, audit) {
      return (await change(id, { passwordHash, updatedAt: at }, audit)) !== undefined
    },
    async update(id, changes, at, audit) {
      return change(id, { ...changes, updatedAt: at }, audit)
    },
  }
}
