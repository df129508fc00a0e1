import type { Role, SessionInfo } from './types.ts'

/**
 * Whether the signed-in login may do something: the server says which permissions its role holds (GET
 * /console/api/session, from the one table in domain/roles.ts), so the console shows only the buttons and pages
 * that would work. Hiding is for the person; the server refuses regardless (403).
 */
export function can(session: SessionInfo, permission: string): boolean {
  return session.user.permissions.includes(permission)
}

/** An admin sees every account: lists name the account and may be narrowed to one. */
export function seesEveryAccount(session: SessionInfo): boolean {
  return session.user.account === null
}

export const roleNames: Record<Role, string> = { admin: 'Admin', 'account-admin': 'Account admin', viewer: 'Viewer' }

/** What the header says after the name: the role, and the account for an account's login. */
export function describeRole(session: SessionInfo): string {
  const { role, account } = session.user
  // "Administrator" rather than "admin · admin" beside a login named admin.
  return role === 'admin' ? 'Administrator' : `${roleNames[role]} of ${account?.name ?? 'an account'}`
}
