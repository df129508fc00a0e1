import { eq } from 'drizzle-orm'
import type { UserRecord } from '../../domain/records.ts'
import type { UserRepository } from '../../domain/repositories.ts'
import { users } from './schema.ts'
import type { PostgresDatabase } from './store.ts'

export function createPostgresUsers(db: PostgresDatabase): UserRepository {
  return {
    async create(user) {
      const [created] = await db.insert(users).values(user).returning()
      return created as UserRecord
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
    async delete(id) {
      return (await db.delete(users).where(eq(users.id, id)).returning({ id: users.id })).length > 0
    },
    async setPasswordHash(id, passwordHash, at) {
      return (await db.update(users).set({ passwordHash, updatedAt: at }).where(eq(users.id, id)).returning({ id: users.id })).length > 0
    },
    async update(id, changes, at) {
      const [user] = await db.update(users).set({ ...changes, updatedAt: at }).where(eq(users.id, id)).returning()
      return user
    },
  }
}
