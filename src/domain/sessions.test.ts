import { afterEach, expect, test } from 'bun:test'
import type { Store } from './repositories.ts'
import { openSqliteStore } from '../db/sqlite/store.ts'
import { endSession, hashSessionToken, resumeSession, sessionIdleMs, sessionLifetimeMs, startSession } from './sessions.ts'
import { changePassword, createUser, verifyCredentials } from './users.ts'

let store: Store | undefined
afterEach(() => store?.close())

async function openWithUser(): Promise<{ store: Store; userId: number }> {
  store = openSqliteStore(':memory:')
  await store.migrate()
  const { user } = await createUser(store, { name: 'ops', role: 'admin', password: 'a long enough password' })
  return { store, userId: user.id }
}

test('only a hash of the token is stored, and the token resumes the session', async () => {
  const { store, userId } = await openWithUser()
  const { token, session } = await startSession(store.sessions, userId, 1_000)
  expect(session.id).toBe(hashSessionToken(token))
  expect(session.id).not.toContain(token)
  expect((await resumeSession(store.sessions, token, 2_000))?.userId).toBe(userId)
  expect(await resumeSession(store.sessions, `${token}x`, 2_000)).toBeUndefined()
})

test('idle sessions expire; active ones slide, but never past the absolute lifetime', async () => {
  const { store, userId } = await openWithUser()
  const idle = await startSession(store.sessions, userId, 0)
  expect(await resumeSession(store.sessions, idle.token, sessionIdleMs + 1)).toBeUndefined()
  expect(await store.sessions.find(idle.session.id)).toBeUndefined() // an expired session is deleted when seen

  const busy = await startSession(store.sessions, userId, 0)
  let now = 0
  while (now < sessionLifetimeMs - sessionIdleMs) {
    now += sessionIdleMs / 2
    expect(await resumeSession(store.sessions, busy.token, now)).toBeDefined()
  }
  expect(await resumeSession(store.sessions, busy.token, sessionLifetimeMs + 1)).toBeUndefined()
})

test('signing out and changing the password both end sessions', async () => {
  const { store, userId } = await openWithUser()
  const first = await startSession(store.sessions, userId)
  await endSession(store.sessions, first.token)
  expect(await resumeSession(store.sessions, first.token)).toBeUndefined()
  const second = await startSession(store.sessions, userId)
  const changed = await changePassword(store, 'ops')
  expect(changed.generated).toBe(true)
  expect(await resumeSession(store.sessions, second.token)).toBeUndefined()
  expect(await verifyCredentials(store.users, 'ops', changed.password)).toBeDefined()
  expect(await verifyCredentials(store.users, 'ops', 'a long enough password')).toBeUndefined()
  expect(await verifyCredentials(store.users, 'nobody', changed.password)).toBeUndefined()
})
