import type { UserRole } from './records.ts'

/**
 * The roles, strongest first: a single sign-on claim listing several gets the first one here (single-sign-on/claims.ts),
 * and a new role is one entry in its place plus its line in `granted` below.
 */
export const userRoles: readonly UserRole[] = ['admin', 'account-admin', 'viewer']

/**
 * What a route may do, one name per group of routes. Every console and admin-API route declares exactly one of these
 * (console/server/access.ts), and `granted` below is the whole answer to "who may": the README's role matrix is this
 * table, and test/role-matrix.test.ts walks every route with every role against it.
 */
export const permissions = [
  'session', // one's own session: who am I, sign out, change one's own password
  'accounts:read', // accounts, balances and their history
  'accounts:create', // open an account
  'accounts:credit', // move money into (or out of) an account: a ledger entry
  'keys:read', // keys, never their secrets
  'keys:write', // create, edit (limits, budget, expiry), rotate, revoke
  'budgets:read', // projects and budgets on a schedule, with their current periods' spend
  'budgets:write', // create, edit and delete projects and budgets
  'users:read', // console logins
  'users:write', // create and delete logins, reset passwords, unlock sign-ins
  'usage:read', // usage totals, the request log and its CSV
  'models:read', // models and prices
  'routes:read', // every upstream route's health (the whole gateway's, not an account's)
  'tasks:read', // batches and their items' status and cost
  'tasks:results', // batch results: the model's answers, content rather than usage
  'audit:read', // the audit log: who changed what, when, from where (an account admin: its account's rows)
  'webhooks:read', // webhooks (never their secrets) and their deliveries
  'webhooks:write', // create and delete webhooks
] as const

export type Permission = (typeof permissions)[number]

const readOnly: Permission[] = ['session', 'accounts:read', 'keys:read', 'budgets:read', 'usage:read', 'models:read', 'tasks:read']

/**
 * Who may do what. An account role acts on its own account only: that is scope, not permission, and is applied in
 * one place too (console/server/scope.ts), so a permitted role still gets 404 for another account's object.
 */
const granted: Record<UserRole, ReadonlySet<Permission>> = {
  admin: new Set(permissions),
  'account-admin': new Set([
    ...readOnly,
    'keys:write',
    'budgets:write',
    'users:read',
    'users:write',
    'tasks:results',
    'audit:read',
    'webhooks:read',
    'webhooks:write',
  ]),
  viewer: new Set(readOnly),
}

export function allows(role: UserRole, permission: Permission): boolean {
  return granted[role].has(permission)
}

/** A role's permissions, in the order of `permissions`: what the console shows and hides by (GET /console/api/session). */
export function permissionsOf(role: UserRole): Permission[] {
  return permissions.filter((permission) => granted[role].has(permission))
}

/** The roles that may hold it: for a refusal's message and the API documentation. */
export function rolesAllowed(permission: Permission): UserRole[] {
  return userRoles.filter((role) => granted[role].has(permission))
}

/** An admin belongs to no account and sees them all; the other roles belong to exactly one. */
export function belongsToAccount(role: UserRole): boolean {
  return role !== 'admin'
}

/**
 * The roles a login of `role` may give to logins it creates: never a stronger one, so an account admin cannot make
 * an admin (or anything that reaches beyond its account).
 */
export function grantableRoles(role: UserRole): UserRole[] {
  return userRoles.slice(userRoles.indexOf(role))
}
