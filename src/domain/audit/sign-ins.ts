import { type Actor, anonymousActor, userActor } from '../actor.ts'
import type { UserRecord } from '../records.ts'
import { auditEvent } from './note.ts'
import type { AuditEntry, AuditFields } from './records.ts'

/** How someone signed in (or tried to). */
export type SignInMethod = 'password' | 'single sign-on'

const aboutUser = (user: UserRecord) => ({ type: 'user' as const, id: String(user.id), accountId: user.accountId })

/** A sign-in that worked: written with the new session (sessions.create), so a session never exists without its row. */
export function signInEntry(
  user: UserRecord,
  method: SignInMethod,
  address: string | null,
  at: number,
  detail: AuditFields = {},
): AuditEntry {
  return auditEvent(userActor(user, address), 'user.sign-in', aboutUser(user), at, { method, ...detail })
}

/**
 * A sign-in refused. The actor is anonymous: whoever tried is not known to be the login they named. The login is the
 * object when one of that name exists; a name no login has is not kept (people type passwords into the name field),
 * only the attempt. `reason` is a fixed word (`wrong_credentials`, `nonce_mismatch`…), never anything the caller sent.
 */
export function failedSignInEntry(
  user: UserRecord | undefined,
  method: SignInMethod,
  reason: string,
  address: string | null,
  at: number,
): AuditEntry {
  const actor: Actor = anonymousActor(address)
  const object = user ? aboutUser(user) : { type: 'user' as const, id: null, accountId: null }
  return auditEvent(actor, 'user.sign-in-failed', object, at, { method, reason })
}
