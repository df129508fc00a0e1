import { Database } from 'bun:sqlite'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
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
  id,
  kind: 'openai',
  accountId: 1,
  keyId: 'key',
  status: 'queued',
  endpoint: '/v1/chat/completions',
  model: null,
  inputFileId: null,
  outputFileId: null,
  errorFileId: null,
  metadata: null,
  displayName: null,
  total: 3,
  succeeded: 0,
  failed: 0,
  canceled: 0,
  expired: 0,
  spent: 0,
  createdAt,
  startedAt: null,
  finishedAt: null,
  cancelRequestedAt: null,
  expiresAt,
})
/** One item, as the runner claims them, from accounts `take` lets through (all by default). */
const claimOne = async (tasks: Store['tasks'], owner: string, now: number, leaseUntil: number, take = (_account: number) => true) =>
  (await tasks.claimItems(owner, now, leaseUntil, 1, take))[0]
const finish = async (
  tasks: Store['tasks'],
  itemId: string,
  owner: string,
  outcome: Parameters<Store['tasks']['finishItems']>[1][number]['outcome'],
) => (await tasks.finishItems(owner, [{ itemId, outcome }]))[0]
const items = (prefix: string) => [0, 1, 2].map((seq) => ({ id: `${prefix}-${seq}`, seq, customId: `c${seq}`, body: '{}' }))

for (const dialect of ['sqlite', 'postgres']) {
  describe(`tasks on ${dialect}`, () => {
    test('a task past its window: running items finish, pending ones end expired, the task ends expired; retention deletes it', async () => {
      const { tasks } = stores[dialect]!
      const now = Date.now()
      await tasks.createTask(task(`exp-${dialect}`, now - 2000, now - 1000), items(`exp-${dialect}`))
      const claimed = (await claimOne(tasks, 'me', now, now + 60_000))!
      expect(claimed.item.seq).toBe(0)
      expect(claimed.task.status).toBe('in_progress')
      expect(await tasks.expireDue(now)).toBe(1)
      expect(await tasks.finishableTasks()).toEqual([])
      // Someone else's claim on it changes nothing.
      expect(await finish(tasks, claimed.item.id, 'other', { status: 'succeeded', statusCode: 200, result: '{}', cost: 7, at: now })).toBe(
        false,
      )
      expect(await finish(tasks, claimed.item.id, 'me', { status: 'succeeded', statusCode: 200, result: '{}', cost: 7, at: now })).toBe(
        true,
      )
      expect(await finish(tasks, claimed.item.id, 'me', { status: 'succeeded', statusCode: 200, result: '{}', cost: 7, at: now })).toBe(
        false,
      )
      const [finishable] = await tasks.finishableTasks()
      expect(finishable).toMatchObject({ id: `exp-${dialect}`, succeeded: 1, expired: 2, spent: 7 })
      await tasks.finalizeTask(finishable!.id, 'expired', now)
      expect((await tasks.findTask(finishable!.id))!.status).toBe('expired')
      await tasks.insertFilePart('file-old', 0, 'x\n')
      await tasks.insertFile({
        id: 'file-old',
        accountId: 1,
        purpose: 'batch',
        filename: 'a',
        bytes: 2,
        taskId: null,
        createdAt: now - 10,
        expiresAt: now - 1,
      })
      expect(await tasks.purge(now + 1, now)).toEqual({ tasks: 1, files: 1 })
      expect(await tasks.findTask(finishable!.id)).toBeUndefined()
      expect(await tasks.items(finishable!.id, -1, 10)).toEqual([])
      expect(await tasks.fileParts('file-old', 0, 10)).toEqual([])
    })

    test('an orphan whose lease ran out is adopted once; a busy account is passed over', async () => {
      const { tasks } = stores[dialect]!
      const now = Date.now()
      await tasks.createTask(task(`orph-${dialect}`, now, now + 60_000), items(`orph-${dialect}`))
      expect(await claimOne(tasks, 'me', now, now + 60_000, (account) => account !== 1)).toBeUndefined()
      const claimed = (await claimOne(tasks, 'dead', now, now - 1))!
      const adopted = await tasks.adoptOrphans('me', now, now + 60_000, false)
      expect(adopted.map((orphan) => orphan.item.id)).toEqual([claimed.item.id])
      expect(adopted[0]!.billed).toBeUndefined()
      expect(await tasks.adoptOrphans('you', now, now + 60_000, false)).toEqual([])
      await tasks.requeueItem(claimed.item.id, 'me')
      expect((await claimOne(tasks, 'me', now, now + 60_000))!.item.id).toBe(claimed.item.id)
    })

    test('claims and ends in one transaction each: the oldest task first, no account past what take() allows, ends counted once', async () => {
      const { tasks } = stores[dialect]!
      const now = Date.now()
      await tasks.createTask({ ...task(`many-a-${dialect}`, now - 10, now + 60_000), accountId: 5 }, items(`many-a-${dialect}`))
      await tasks.createTask({ ...task(`many-b-${dialect}`, now - 5, now + 60_000), accountId: 6 }, items(`many-b-${dialect}`))
      // Account 5 may take two, account 6 any: four claimed, two of each task's, oldest first.
      const counts = new Map<number, number>()
      const take = (account: number) => {
        if (account !== 5 && account !== 6) return false
        if (account === 5 && (counts.get(5) ?? 0) >= 2) return false
        counts.set(account, (counts.get(account) ?? 0) + 1)
        return true
      }
      const claimed = await tasks.claimItems('me', now, now + 60_000, 4, take)
      expect(claimed.map(({ item }) => item.id)).toEqual([
        `many-a-${dialect}-0`,
        `many-a-${dialect}-1`,
        `many-b-${dialect}-0`,
        `many-b-${dialect}-1`,
      ])
      expect(claimed.every(({ task }) => task.status === 'in_progress')).toBe(true)
      const outcome = { status: 'errored' as const, statusCode: 403, result: '{}', cost: 0, at: now }
      const ends = claimed.map(({ item }) => ({ itemId: item.id, outcome }))
      expect(await tasks.finishItems('me', [...ends, ends[0]!])).toEqual([true, true, true, true, false])
      expect((await tasks.findTask(`many-a-${dialect}`))!.failed).toBe(2)
      expect((await tasks.findTask(`many-b-${dialect}`))!.failed).toBe(2)
      for (const id of [`many-a-${dialect}`, `many-b-${dialect}`]) await tasks.requestCancel(id, now)
    })

    test('quotas are counted as the rows are written: of two tasks written at once past the open quota, one is; a file past a quota writes nothing', async () => {
      const { tasks } = stores[dialect]!
      const now = Date.now()
      const accountId = 7
      const ofAccount = (id: string) => ({ ...task(id, now, now + 60_000), accountId })
      const written = await Promise.all(
        ['q1', 'q2'].map((id) => tasks.createTask(ofAccount(`${id}-${dialect}`), items(`${id}-${dialect}`), 1)),
      )
      expect(written.toSorted()).toEqual([false, true])
      const loser = written[0] ? 'q2' : 'q1'
      expect(await tasks.findTask(`${loser}-${dialect}`)).toBeUndefined()
      expect(await tasks.items(`${loser}-${dialect}`, -1, 10)).toEqual([])
      expect(await tasks.openTaskCount(accountId)).toBe(1)
      const quota = { maxFilesPerAccount: 2, maxStoredBytesPerAccount: 150 }
      const file = (id: string, bytes: number) => ({
        id: `${id}-${dialect}`,
        accountId,
        purpose: 'batch' as const,
        filename: 'a',
        bytes,
        taskId: null,
        createdAt: now,
        expiresAt: null,
      })
      expect(await tasks.insertFile(file('f1', 100), quota)).toBe('stored')
      expect(await tasks.insertFile(file('f2', 100), quota)).toBe('bytes')
      expect(await tasks.insertFile(file('f3', 10), quota)).toBe('stored')
      expect(await tasks.insertFile(file('f4', 1), quota)).toBe('files')
      // The gateway's own output files are not counted against the account.
      expect(await tasks.insertFile({ ...file('out', 1000), purpose: 'batch_output' })).toBe('stored')
      expect(await tasks.storedFiles(accountId)).toEqual({ files: 2, bytes: 110 })
      expect(await tasks.findFile(`f2-${dialect}`)).toBeUndefined()
    })

    test('a cancel ends every pending item of a task of thousands, each counted once', async () => {
      const { tasks } = stores[dialect]!
      const now = Date.now()
      const many = Array.from({ length: 2_345 }, (_, seq) => ({ id: `big-${dialect}-${seq}`, seq, customId: `c${seq}`, body: '{}' }))
      await tasks.createTask({ ...task(`big-${dialect}`, now, now + 60_000), accountId: 8, total: many.length }, many)
      const cancelled = (await tasks.requestCancel(`big-${dialect}`, now))!
      expect(cancelled).toMatchObject({ status: 'cancelling', canceled: many.length })
      expect((await tasks.finishableTasks()).map((one) => one.id)).toContain(`big-${dialect}`)
      expect(await tasks.deleteTask(`big-${dialect}`)).toBe(true)
      expect(await tasks.items(`big-${dialect}`, -1, 10)).toEqual([])
    })
  })
}

test('SQLite: rows a crash left half-written (items with no task, parts with no file) are removed at start, nothing else', async () => {
  const path = join(mkdtempSync(join(tmpdir(), 'tollgate-leftovers-')), 'tollgate.db')
  const store = openSqliteStore(path)
  await store.migrate()
  const { tasks } = store
  const now = Date.now()
  await tasks.createTask(task('kept', now, now + 60_000), items('kept'))
  await tasks.insertFilePart('file-kept', 0, 'x\n')
  await tasks.insertFile({
    id: 'file-kept',
    accountId: 1,
    purpose: 'batch',
    filename: 'a',
    bytes: 2,
    taskId: null,
    createdAt: now,
    expiresAt: null,
  })
  // What a crash mid-write leaves: items whose task row was never written, parts of an upload never recorded.
  await tasks.insertFilePart('file-cut', 0, 'y\n')
  await tasks.insertFilePart('file-cut', 1, 'z\n')
  const raw = new Database(path)
  raw.run(
    `INSERT INTO task_items (id, task_id, seq, custom_id, body, status) VALUES ('cut-0', 'cut', 0, 'c', '{}', 'pending'), ('cut-1', 'cut', 1, 'c', '{}', 'pending')`,
  )
  raw.close()
  expect(await tasks.removeLeftovers()).toBe(4)
  expect(await tasks.items('cut', -1, 10)).toEqual([])
  expect(await tasks.fileParts('file-cut', 0, 10)).toEqual([])
  expect((await tasks.items('kept', -1, 10)).length).toBe(3)
  expect((await tasks.fileParts('file-kept', 0, 10)).length).toBe(1)
  expect(await tasks.removeLeftovers()).toBe(0)
  await store.close()
})
