import type { AccountRecord, KeyRecord } from '../../domain/records.ts'
import type { Services } from '../../edge/services.ts'
import { notFound } from './respond.ts'
import type { Viewer } from './viewer.ts'

export function isAdmin(viewer: Viewer): boolean {
  return viewer.user.role === 'admin'
}

/** The one account an account user may see; undefined for an admin, who sees them all. */
export function ownAccountId(viewer: Viewer): number | undefined {
  if (isAdmin(viewer)) return undefined
  // An account user without an account (not creatable, but cheap to guard) sees nothing at all.
  return viewer.user.accountId ?? -1
}

/** The account behind an ID from a URL or a body, or 404 when it does not exist *or* is not the viewer's. */
export function visibleAccount(services: Services, viewer: Viewer, id: unknown): Promise<AccountRecord> {
  return findAccount(services, ownAccountId(viewer), id)
}

/** The key behind an ID, or 404 when it does not exist or belongs to another account. */
export function visibleKey(services: Services, viewer: Viewer, id: unknown): Promise<KeyRecord> {
  return findKey(services, ownAccountId(viewer), id)
}

/**
 * The account behind an ID, or 404 when it does not exist or is not `own` (the one account a caller may see;
 * undefined for a caller who sees them all: an admin, an admin token).
 */
export async function findAccount(services: Services, own: number | undefined, id: unknown): Promise<AccountRecord> {
  const numeric = typeof id === 'number' ? id : typeof id === 'string' && /^\d{1,15}$/.test(id) ? Number(id) : NaN
  if (!Number.isSafeInteger(numeric)) throw notFound('No such account.')
  if (own !== undefined && own !== numeric) throw notFound('No such account.')
  const account = await services.store.accounts.findById(numeric)
  if (!account) throw notFound('No such account.')
  return account
}

/** The key behind an ID, or 404 when it does not exist or belongs to an account other than `own`. */
export async function findKey(services: Services, own: number | undefined, id: unknown): Promise<KeyRecord> {
  const key = typeof id === 'string' && id.length <= 64 ? await services.store.keys.findById(id) : undefined
  if (!key || (own !== undefined && key.accountId !== own)) throw notFound('No such key.')
  return key
}
