import type { UserRecord, UserRole } from './records.ts'
import type { AccountRepository, SessionRepository, UserRepository } from './repositories.ts'
import { DomainError } from './errors.ts'
import { requireValidName } from './names.ts'
import { belongsToAccount } from './roles.ts'
import { randomBase62 } from '../core/ids.ts'
import { type Actor, systemActor } from './actor.ts'
import { auditChange } from './audit/note.ts'
import { userObject } from './audit/objects.ts'

const minimumPasswordLength = 12
/**
 * OWASP's recommended argon2id setting (19 MiB, 2 passes). Bun's default takes 64 MiB per hash, which lets a
 * burst of sign-in attempts claim a lot of memory; the hash records its parameters, so they can change later.
 */
const hashOptions = { algorithm: 'argon2id', memoryCost: 19_456, timeCost: 2 } as const

export function hashPassword(password: string): Promise<string> {
  return Bun.password.hash(password, hashOptions)
}
// Argon2 hashes whatever it is given: an unbounded password would be a cheap way to burn CPU and memory.
const maximumPasswordLength = 512

export interface NewUserInput {
  name: string
  role: UserRole
  /** Required for the account roles (`account-admin`, `viewer`), absent for admins. */
  accountId?: number
  /** When absent a strong password is generated and returned once. */
  password?: string
  /** No password at all: the login waits for its person's first single sign-on (domain/single-sign-on). */
  singleSignOn?: boolean
}

export interface UserWithPassword {
  user: UserRecord
  password: string
  generated: boolean
}

/** 24 base62 characters ≈ 143 bits: nobody guesses it, and it still fits a password manager field. */
function generatePassword(): string {
  return randomBase62(24)
}

function choosePassword(password: string | undefined): { password: string; generated: boolean } {
  if (password === undefined) return { password: generatePassword(), generated: true }
  if (password.length < minimumPasswordLength)
    throw new DomainError('invalid', `the password must be at least ${minimumPasswordLength} characters`)
  if (password.length > maximumPasswordLength)
    throw new DomainError('invalid', `the password must be at most ${maximumPasswordLength} characters`)
  return { password, generated: false }
}

/** A new login, recorded in the audit log as made by `actor` (without one: by the gateway itself, as fixtures are). */
export async function createUser(
  repositories: { users: UserRepository; accounts: AccountRepository },
  input: NewUserInput,
  actor: Actor = systemActor(),
  now = Date.now(),
): Promise<UserWithPassword> {
  requireValidName('user name', input.name)
  if (input.role === 'admin' && input.accountId !== undefined) throw new DomainError('invalid', 'an admin does not belong to an account')
  if (belongsToAccount(input.role)) {
    if (input.accountId === undefined) throw new DomainError('invalid', `a login with the role ${input.role} needs an account`)
    if (!(await repositories.accounts.findById(input.accountId)))
      throw new DomainError('not_found', `account ${input.accountId} does not exist`)
  }
  if (await repositories.users.findByName(input.name)) throw new DomainError('conflict', `user "${input.name}" already exists`)
  if (input.singleSignOn && input.password !== undefined) throw new DomainError('invalid', 'a single sign-on login has no password')
  const { password, generated } = input.singleSignOn ? { password: '', generated: false } : choosePassword(input.password)
  const user = await repositories.users.create(
    {
      name: input.name,
      role: input.role,
      accountId: input.accountId ?? null,
      // An empty hash matches no password (verifyCredentials): the login can only be signed on to.
      passwordHash: input.singleSignOn ? '' : await hashPassword(password),
      createdAt: now,
      updatedAt: now,
    },
    auditChange(actor, 'user.create', userObject, { at: now }),
  )
  return { user, password, generated }
}

async function requireUser(users: UserRepository, name: string): Promise<UserRecord> {
  const user = await users.findByName(name)
  if (!user) throw new DomainError('not_found', `user "${name}" does not exist`)
  return user
}

/**
 * A new password signs the user out everywhere: whoever knew the old one loses their sessions too. The audit row
 * (`user.password`) says only that it was rotated, and by whom: the login itself, or an admin resetting it.
 */
export async function changePassword(
  repositories: { users: UserRepository; sessions: SessionRepository },
  name: string,
  newPassword?: string,
  actor: Actor = systemActor(),
): Promise<UserWithPassword> {
  const user = await requireUser(repositories.users, name)
  const { password, generated } = choosePassword(newPassword)
  const at = Date.now()
  await repositories.users.setPasswordHash(
    user.id,
    await hashPassword(password),
    at,
    auditChange(actor, 'user.password', userObject, { at, rotated: 'password' }),
  )
  await repositories.sessions.deleteForUser(user.id)
  return { user, password, generated }
}

export async function deleteUser(users: UserRepository, name: string, actor: Actor = systemActor()): Promise<UserRecord> {
  const user = await requireUser(users, name)
  await users.delete(user.id, auditChange(actor, 'user.delete', userObject, { at: Date.now() }))
  return user
}

let dummyHash: Promise<string> | undefined

/**
 * The user whose password this is, or undefined. An unknown name still costs one full hash verification,
 * so response time does not reveal which names exist.
 */
export async function verifyCredentials(users: UserRepository, name: string, password: string): Promise<UserRecord | undefined> {
  const user = password.length <= maximumPasswordLength ? await users.findByName(name) : undefined
  dummyHash ??= hashPassword(generatePassword())
  // A login without a password (single sign-on only) costs the same verification, which then fails.
  const hash = user?.passwordHash || (await dummyHash)
  const matches = await Bun.password.verify(password.slice(0, maximumPasswordLength), hash)
  return user && user.passwordHash !== '' && matches ? user : undefined
}

/** All logins, or those of one account. */
export async function listUsers(users: UserRepository, accountId?: number): Promise<UserRecord[]> {
  const all = await users.list()
  return accountId === undefined ? all : all.filter((user) => user.accountId === accountId)
}
