import type { AdminTokenRecord, KeyRecord, UserRecord, UserRole } from './records.ts'
import { belongsToAccount } from './roles.ts'

/**
 * Who is asking or making a change, and from where: the one answer for the console's and the admin API's gates
 * (console/server/access.ts puts one on every request's context as `actor`), for the CLI, for a key holder using the
 * vendor APIs, and for the gateway itself. A ledger entry names it by `label`; an audit row (domain/audit) records
 * its kind, id, label and address beside each change, so whoever records who did what reads it here.
 */
export interface Actor {
  /**
   * `user`: a console login; `admin-token`: the admin API; `cli`: the operator CLI, named by its OS user; `key`: an
   * API key's holder through the vendor APIs (cancelling its own batch); `system`: the gateway itself (a config
   * reload by signal, a fixture); `anonymous`: someone not signed in (a failed sign-in).
   */
  kind: 'user' | 'admin-token' | 'cli' | 'key' | 'system' | 'anonymous'
  /**
   * What it may do where a role is checked (the console and the admin API only): a login's role; a `read` admin
   * token acts as a viewer of every account, a `full` one as an admin; the CLI and the system as an admin. A key holder
   * and an anonymous caller never reach a route that checks a role; they carry the weakest one.
   */
  role: UserRole
  /** The one account it sees and changes; undefined: every account. */
  accountId: number | undefined
  /** The login's id, the admin token's id, the key's id, or the CLI's OS user: what an audit row names it by. */
  id: string | null
  /** How a ledger entry, a log line or an audit row shows it: the login's name, `admin-token:NAME`, `cli:OSUSER`, `key:ID`. */
  label: string
  /** The client's address (after `trusted_proxies`); null for the CLI and the system. */
  address: string | null
}

export function userActor(user: UserRecord, address: string | null): Actor {
  return {
    kind: 'user',
    role: user.role,
    id: String(user.id),
    label: user.name,
    address,
    // A login of an account role without an account (not creatable, but cheap to guard) sees no account at all.
    accountId: belongsToAccount(user.role) ? (user.accountId ?? -1) : undefined,
  }
}

/** Admin tokens are not bound to an account: a read token reads everything, a full token may change everything. */
export function adminTokenActor(token: AdminTokenRecord, address: string | null): Actor {
  return {
    kind: 'admin-token',
    role: token.scope === 'full' ? 'admin' : 'viewer',
    accountId: undefined,
    id: token.id,
    label: `admin-token:${token.name}`,
    address,
  }
}

/** The operator CLI, run as `osUser`: whoever can run it on the gateway's machine may change everything. */
export function cliActor(osUser: string): Actor {
  return { kind: 'cli', role: 'admin', accountId: undefined, id: osUser, label: `cli:${osUser}`, address: null }
}

/** An API key's holder, through the vendor APIs: it acts on its own account's batches only. */
export function keyActor(key: Pick<KeyRecord, 'id' | 'accountId'>, address: string | null): Actor {
  return { kind: 'key', role: 'viewer', accountId: key.accountId, id: key.id, label: `key:${key.id}`, address }
}

/** The gateway itself, e.g. `system` or `signal:SIGHUP`: a change nobody signed in asked for. */
export function systemActor(label = 'system'): Actor {
  return { kind: 'system', role: 'admin', accountId: undefined, id: null, label, address: null }
}

/** Someone not signed in, known only by address: a failed sign-in's actor. */
export function anonymousActor(address: string | null): Actor {
  return { kind: 'anonymous', role: 'viewer', accountId: -1, id: null, label: 'anonymous', address }
}
