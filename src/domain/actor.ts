import type { AdminTokenRecord, UserRecord, UserRole } from './records.ts'
import { belongsToAccount } from './roles.ts'

/**
 * Who is making a change or asking: a signed-in console login or an admin token. The console's and the admin API's
 * gates put one on every request's context as `actor` (console/server/access.ts); whatever records who did what (a
 * ledger entry's actor, a log line, an audit row) reads it there.
 */
export interface Actor {
  kind: 'user' | 'admin-token'
  /** A login's role; for an admin token the role it acts as: `read` ≈ a viewer of every account, `full` ≈ an admin. */
  role: UserRole
  /** The one account it sees and changes; undefined: every account. */
  accountId: number | undefined
  userId: number | null
  adminTokenId: string | null
  /** How a ledger entry or a log line names it: the login's name, or `admin-token:NAME`. */
  label: string
  /** The client's address (after `trusted_proxies`), for whatever records the change. */
  address: string | null
}

export function userActor(user: UserRecord, address: string | null): Actor {
  return {
    kind: 'user', role: user.role, userId: user.id, adminTokenId: null, label: user.name, address,
    // A login of an account role without an account (not creatable, but cheap to guard) sees no account at all.
    accountId: belongsToAccount(user.role) ? (user.accountId ?? -1) : undefined,
  }
}

/** Admin tokens are not bound to an account: a read token reads everything, a full token may change everything. */
export function adminTokenActor(token: AdminTokenRecord, address: string | null): Actor {
  return {
    kind: 'admin-token', role: token.scope === 'full' ? 'admin' : 'viewer', accountId: undefined,
    userId: null, adminTokenId: token.id, label: `admin-token:${token.name}`, address,
  }
}
