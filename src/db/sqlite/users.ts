import { eq } from 'drizzle-orm'
import type { UserRecord } from '../../domain/records.ts'
import type { UserRepository } from '../../domain/repositories.ts'
import { users } from './schema.ts'
import type { SqliteDatabase } from './store.ts'

export function createSqliteUsers(db: SqliteDatabase): UserRepository {
  return {
    async create(user) {
      return db.insert(users).values(user).returning().get() as UserRecord
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
    async delete(id) {
      return db.delete(users).where(eq(users.id, id)).returning({ id: users.id }).all().length > 0
    },
    async setPasswordHash(id, passwordHash, at) {
      return db.update(users).set({ passwordHash, updatedAt: at }).where(eq(users.id, id)).returning({ id: users.id }).all().length > 0
    },
    async update(id, changes, at) {
      return db.update(users).set({ ...changes, updatedAt: at }).where(eq(users.id, id)).returning().get()
    },
  }
}
