import type { AuditEntry } from './audit/records.ts'
import type { SessionRecord } from './records.ts'
import type { SessionRepository } from './repositories.ts'
import { randomBase62 } from '../core/ids.ts'
import { dayMs } from '../core/time.ts'

/** A session ends after this long without a request… */
export const sessionIdleMs = 8 * 3_600_000
/** …and after this long in any case. */
export const sessionLifetimeMs = 7 * dayMs
// Sliding the expiry on every request would turn every page view into a write.
const extendEveryMs = 60_000

/** The table stores only a hash of the cookie's token: a leaked backup cannot be replayed as a session. */
export function hashSessionToken(token: string): string {
  return new Bun.CryptoHasher('sha256').update(token).digest('hex')
}

export interface StartedSession {
  /** Goes into the cookie, and nowhere else. */
  token: string
  session: SessionRecord
}

/** A new session; with `audit` (a sign-in's row, audit/sign-ins.ts), recorded in the same transaction. */
export async function startSession(
  sessions: SessionRepository,
  userId: number,
  now = Date.now(),
  audit?: AuditEntry,
): Promise<StartedSession> {
  await sessions.deleteExpired(now)
  const token = randomBase62(43) // ≈ 256 bits
  const session: SessionRecord = {
    id: hashSessionToken(token),
    userId,
    csrfToken: randomBase62(32),
    createdAt: now,
    lastSeenAt: now,
    expiresAt: Math.min(now + sessionIdleMs, now + sessionLifetimeMs),
  }
  await sessions.create(session, audit)
  return { token, session }
}

/** The live session behind a cookie token, its idle expiry pushed forward; undefined when unknown or expired. */
export async function resumeSession(sessions: SessionRepository, token: string, now = Date.now()): Promise<SessionRecord | undefined> {
  const session = await sessions.find(hashSessionToken(token))
  if (!session) return undefined
  if (session.expiresAt <= now) {
    await sessions.delete(session.id)
    return undefined
  }
  if (now - session.lastSeenAt >= extendEveryMs) {
    const expiresAt = Math.min(now + sessionIdleMs, session.createdAt + sessionLifetimeMs)
    await sessions.extend(session.id, now, expiresAt)
    return { ...session, lastSeenAt: now, expiresAt }
  }
  return session
}

export async function endSession(sessions: SessionRepository, token: string): Promise<void> {
  await sessions.delete(hashSessionToken(token))
}
