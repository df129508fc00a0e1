import { userActor } from '../actor.ts'
import { auditChange } from '../audit/note.ts'
import { userObject } from '../audit/objects.ts'
import type { AuditNote } from '../audit/records.ts'
import type { UserRecord, UserRole } from '../records.ts'
import type { AccountRepository, SessionRepository, UserRepository } from '../repositories.ts'
import { isValidName } from '../names.ts'
import { belongsToAccount } from '../roles.ts'
import { type ClaimRules, checkEmail, mapAccount, mapRole, SignOnRefused } from './claims.ts'
import type { IdentityRepository } from './repository.ts'

export interface SignOnRepositories {
  users: UserRepository
  accounts: AccountRepository
  sessions: SessionRepository
  identities: IdentityRepository
}

/** Who the provider says signed in: its verified ID token's issuer, subject and claims. */
export interface ProvenIdentity {
  issuer: string
  subject: string
  claims: Record<string, unknown>
}

export interface SignedOn {
  user: UserRecord
  /** `created`: made just now; `linked`: an operator's `--sso` login met its person; `returning`: signed on before. */
  how: 'created' | 'linked' | 'returning'
  /** The fields this sign-on changed on an existing login (role, account, name). */
  changed: string[]
}

/** The login name: the email when there is one, else the provider's username; both must be valid names. */
function chooseName(email: string | undefined, claims: Record<string, unknown>): string {
  const candidates = [email, typeof claims.preferred_username === 'string' ? claims.preferred_username.trim().toLowerCase() : undefined]
  const name = candidates.find((candidate) => candidate !== undefined && isValidName(candidate))
  if (!name)
    throw new SignOnRefused(
      'no_usable_name',
      'Your identity provider shared neither an email address nor a username this gateway can use as your login name.',
    )
  return name
}

/**
 * The login a proven identity signs in as. Known identities are found by (issuer, subject), never by email, which
 * people change and providers reuse. A first sign-on is created just in time, or meets the password-less login an
 * operator made for that name (`tollgate user create NAME --admin --sso`); any other login of that name is refused,
 * so an identity provider can never take over a local login. Role and account follow the claims on every sign-on
 * (where claims are configured; otherwise they stay as the operator set them), and a person the claims no longer
 * admit is refused and signed out everywhere. A login made or changed here is recorded in the audit log (`user.create`,
 * `user.edit`) as done by the person signing on, from `address`.
 */
export async function signOn(
  repositories: SignOnRepositories,
  rules: ClaimRules,
  identity: ProvenIdentity,
  now = Date.now(),
  address: string | null = null,
): Promise<SignedOn> {
  const { users, identities } = repositories
  const known = await identities.findIdentity(identity.issuer, identity.subject)
  const existing = known ? await users.findById(known.userId) : undefined
  try {
    const email = checkEmail(identity.claims, rules)
    const name = chooseName(email, identity.claims)
    const waiting = existing ? undefined : await findWaitingLogin(repositories, name)
    const current = existing ?? waiting
    // Without a role claim a newcomer gets the least privilege; an operator raises it (or configures role_claim).
    const role: UserRole = mapRole(identity.claims, rules) ?? current?.role ?? 'viewer'
    const accountId = belongsToAccount(role) ? await chooseAccount(repositories, identity.claims, rules, current) : null
    const record = { issuer: identity.issuer, subject: identity.subject, email: email ?? null }
    if (!current) {
      const user = await identities.createLinkedUser(
        { name, role, accountId, passwordHash: '', createdAt: now, updatedAt: now },
        { ...record, createdAt: now, lastSignInAt: now },
        bySignOn('user.create', address, now),
      )
      return { user, how: 'created', changed: [] }
    }
    if (waiting) await identities.link({ ...record, userId: waiting.id, createdAt: now, lastSignInAt: now })
    else await identities.recordSignIn(identity.issuer, identity.subject, record.email, now)
    const rename = name !== current.name && !(await users.findByName(name))
    const next = { name: rename ? name : current.name, role, accountId }
    const changed = (['name', 'role', 'accountId'] as const).filter((field) => next[field] !== current[field])
    const user =
      changed.length > 0 ? ((await users.update(current.id, next, now, bySignOn('user.edit', address, now))) ?? current) : current
    return { user, how: waiting ? 'linked' : 'returning', changed }
  } catch (error) {
    // Access taken away at the provider ends this person's console sessions here too.
    if (error instanceof SignOnRefused && existing) await repositories.sessions.deleteForUser(existing.id)
    throw error
  }
}

/** The audit note of a login single sign-on makes or changes: its actor is the person signing on, as that login. */
function bySignOn(action: string, address: string | null, at: number): AuditNote<UserRecord> {
  return (before, after) =>
    auditChange(userActor(after!, address), action, userObject, { at, detail: { via: 'single sign-on' } })(before, after)
}

/** A login made by an operator for this name that has no password and no identity yet: it waits for its person. */
async function findWaitingLogin(repositories: SignOnRepositories, name: string): Promise<UserRecord | undefined> {
  const user = await repositories.users.findByName(name)
  if (!user) return undefined
  if (user.passwordHash === '' && (await repositories.identities.listForUser(user.id)).length === 0) return user
  throw new SignOnRefused(
    'name_taken',
    `A login named ${name} already exists on this gateway and is not linked to your identity provider. Ask an operator.`,
  )
}

async function chooseAccount(
  repositories: SignOnRepositories,
  claims: Record<string, unknown>,
  rules: ClaimRules,
  current?: UserRecord,
): Promise<number> {
  const account = await mapAccount(repositories.accounts, claims, rules)
  const accountId = account?.id ?? current?.accountId ?? undefined
  if (accountId === undefined || accountId === null) {
    throw new SignOnRefused('no_account', 'This gateway has no account for you yet. Ask an operator for access.')
  }
  return accountId
}

export { SignOnRefused } from './claims.ts'
