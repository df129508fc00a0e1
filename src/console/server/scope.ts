import type { AccountRecord, KeyRecord, ProjectRecord, UserRecord } from '../../domain/records.ts'
import type { TaskRecord } from '../../domain/tasks/records.ts'
import type { Services } from '../../edge/services.ts'
import { notFound } from './respond.ts'

/**
 * Account scoping, in one place: whoever asks (a console login, an admin token) carries the one account it may see
 * and change (`actor.accountId`, domain/actor.ts), or none for an admin or an admin token, who see them all. Every
 * object behind an ID goes through a function here, and another account's object answers 404 exactly like a missing
 * one, so its existence is not given away. (What a role may do at all is the permission, checked before: access.ts.)
 */
interface Scoped {
  actor: { accountId: number | undefined }
}

/** The one account the caller may see; undefined for an admin or an admin token, who see them all. */
export function ownAccountId(who: Scoped): number | undefined {
  return who.actor.accountId
}

/** Every account's data, so lists may name accounts and break usage down by account. */
export function seesEveryAccount(who: Scoped): boolean {
  return who.actor.accountId === undefined
}

/** The account behind an ID from a URL or a body, or 404 when it does not exist *or* is not the caller's. */
export function visibleAccount(services: Services, who: Scoped, id: unknown): Promise<AccountRecord> {
  return findAccount(services, ownAccountId(who), id)
}

/** The key behind an ID, or 404 when it does not exist or belongs to another account. */
export function visibleKey(services: Services, who: Scoped, id: unknown): Promise<KeyRecord> {
  return findKey(services, ownAccountId(who), id)
}

/** The login behind an ID, or 404 when it does not exist or is not of the caller's account (an admin's login is of none). */
export async function visibleUser(services: Services, who: Scoped, id: string): Promise<UserRecord> {
  const user = /^\d{1,15}$/.test(id) ? await services.store.users.findById(Number(id)) : undefined
  const own = ownAccountId(who)
  if (!user || (own !== undefined && user.accountId !== own)) throw notFound('No such user.')
  return user
}

/** The task behind an ID (`batches/…` as Gemini names them, too), or 404 when it does not exist or is another account's. */
export async function visibleTask(services: Services, who: Scoped, id: string): Promise<TaskRecord> {
  const task = id.length <= 100 ? await services.tasks.repository.findTask(id.replace(/^batches\//, '')) : undefined
  const own = ownAccountId(who)
  if (!task || (own !== undefined && task.accountId !== own)) throw notFound('No such task.')
  return task
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

/** The project behind an ID, or 404 when it does not exist or belongs to an account other than `own`. */
export async function findProject(services: Services, own: number | undefined, id: unknown): Promise<ProjectRecord> {
  const project = typeof id === 'string' && /^\d{1,15}$/.test(id) ? await services.store.budgets.findProject(Number(id)) : undefined
  if (!project || (own !== undefined && project.accountId !== own)) throw notFound('No such project.')
  return project
}
