import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { openPostgresStore } from '../src/db/postgres/store.ts'
import { openSqliteStore } from '../src/db/sqlite/store.ts'
import type { Store } from '../src/domain/repositories.ts'
import type { TaskRecord } from '../src/domain/tasks/records.ts'
import { createTestDatabase } from './support/postgres.ts'

/** The task repository's rules, on both databases: expiry, claims, and retention. */
let postgres: Awaited<ReturnType<typeof createTestDatabase>>
const stores: Record<string, Store> = {}

beforeAll(async () => {
  postgres = await createTestDatabase()
  stores.sqlite = openSqliteStore(':memory:')
  stores.postgres = openPostgresStore(postgres.url)
  for (const store of Object.values(stores)) await store.migrate()
}, 30_000)

afterAll(async () => {
  for (const store of Object.values(stores)) await store.close()
  await postgres.drop()
})

const task = (id: string, createdAt: number, expiresAt: number): TaskRecord => ({
  id, kind: 'openai', accountId: 1, keyId: 'key', status: 'queued', endpoint: '/v1/chat/completions', model: null, inputFileId: null,
  outputFileId: null, errorFileId: null, metadata: null, displayName: null, total: 3, succeeded: 0, failed: 0, canceled: 0, expired: 0, spent: 0,
  createdAt, startedAt: null, finishedAt: null, cancelRequestedAt: null, expiresAt,
})
const items = (prefix: string) => [0, 1, 2].map((seq) => ({ id: `${prefix}-${seq}`, seq, customId: `c${seq}`, body: '{}' }))

for (const dialect of ['sqlite', 'postgres']) {
  describe(`tasks on ${dialect}`, () => {
    test('a task past its window: running items finish, pending ones end expired, the task ends expired; retention deletes it', async () => {
      const { tasks } = stores[dialect]!
      const now = Date.now()
      await tasks.createTask(task(`exp-${dialect}`, now - 2000, now - 1000), items(`exp-${dialect}`))
      const claimed = (await tasks.claimItem('me', now, now + 60_000, []))!
      expect(claimed.item.seq).toBe(0)
      expect(claimed.task.status).toBe('in_progress')
      expect(await tasks.expireDue(now)).toBe(1)
      expect(await tasks.finishableTasks()).toEqual([])
      // Someone else's claim on it changes nothing.
      expect(await tasks.finishItem(claimed.item.id, 'other', { status: 'succeeded', statusCode: 200, result: '{}', cost: 7, at: now })).toBe(false)
      expect(await tasks.finishItem(claimed.item.id, 'me', { status: 'succeeded', statusCode: 200, result: '{}', cost: 7, at: now })).toBe(true)
      expect(await tasks.finishItem(claimed.item.id, 'me', { status: 'succeeded', statusCode: 200, result: '{}', cost: 7, at: now })).toBe(false)
      const [finishable] = await tasks.finishableTasks()
      expect(finishable).toMatchObject({ id: `exp-${dialect}`, succeeded: 1, expired: 2, spent: 7 })
      await tasks.finalizeTask(finishable!.id, 'expired', now)
      expect((await tasks.findTask(finishable!.id))!.status).toBe('expired')
      await tasks.insertFilePart('file-old', 0, 'x\n')
      await tasks.insertFile({ id: 'file-old', accountId: 1, purpose: 'batch', filename: 'a', bytes: 2, taskId: null, createdAt: now - 10, expiresAt: now - 1 })
      expect(await tasks.purge(now + 1, now)).toEqual({ tasks: 1, files: 1 })
      expect(await tasks.findTask(finishable!.id)).toBeUndefined()
      expect(await tasks.items(finishable!.id, -1, 10)).toEqual([])
      expect(await tasks.fileParts('file-old', 0, 10)).toEqual([])
    })

    test('an orphan whose lease ran out is adopted once; a busy account is passed over', async () => {
      const { tasks } = stores[dialect]!
      const now = Date.now()
      await tasks.createTask(task(`orph-${dialect}`, now, now + 60_000), items(`orph-${dialect}`))
      expect(await tasks.claimItem('me', now, now + 60_000, [1])).toBeUndefined()
      const claimed = (await tasks.claimItem('dead', now, now - 1, []))!
      const adopted = await tasks.adoptOrphans('me', now, now + 60_000, false)
      expect(adopted.map((orphan) => orphan.item.id)).toEqual([claimed.item.id])
      expect(adopted[0]!.billed).toBeUndefined()
      expect(await tasks.adoptOrphans('you', now, now + 60_000, false)).toEqual([])
      await tasks.requeueItem(claimed.item.id, 'me')
      expect((await tasks.claimItem('me', now, now + 60_000, []))!.item.id).toBe(claimed.item.id)
    })
  })
}
