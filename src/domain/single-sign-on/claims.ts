import type { AccountRecord, UserRole } from '../records.ts'
import type { AccountRepository } from '../repositories.ts'
import { userRoles } from '../roles.ts'

/**
 * What the identity provider's claims say about a person, read the same way for every provider: the rules come
 * from `auth.oidc` (allowed_domains, role_claim, account_claim), the claims from a verified ID token.
 */
export interface ClaimRules {
  /** Lower-case email domains allowed; empty allows any. */
  allowedDomains: readonly string[]
  roleClaim?: string
  accountClaim?: string
}

/** Why a sign-on was refused: `reason` is logged and tested, `message` is what the person reads. */
export class SignOnRefused extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message)
    this.name = 'SignOnRefused'
  }
}

/**
 * A claim's value(s) as strings. `name` is first looked up whole (Auth0's namespaced claims are URLs, dots and all),
 * then as a dotted path (Keycloak's `realm_access.roles`, `resource_access.tollgate.roles`).
 */
export function readClaim(claims: Record<string, unknown>, name: string): string[] {
  let value: unknown = claims[name]
  if (value === undefined && name.includes('.')) {
    value = name
      .split('.')
      .reduce<unknown>(
        (node, part) => (node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined),
        claims,
      )
  }
  const values = Array.isArray(value) ? value : [value]
  return values
    .filter((item): item is string | number => typeof item === 'string' || typeof item === 'number')
    .map(String)
    .filter((item) => item !== '')
}

/** The lower-cased email, checked against the allowed domains; undefined when the provider sent none and none is needed. */
export function checkEmail(claims: Record<string, unknown>, rules: ClaimRules): string | undefined {
  const email = typeof claims.email === 'string' && claims.email.includes('@') ? claims.email.trim().toLowerCase() : undefined
  if (claims.email_verified === false) {
    throw new SignOnRefused(
      'email_not_verified',
      'Your identity provider says your email address is not verified. Verify it there, then sign in again.',
    )
  }
  if (rules.allowedDomains.length === 0) return email
  if (email === undefined) {
    throw new SignOnRefused(
      'no_email',
      'Your identity provider did not share your email address, which this gateway needs to check your domain.',
    )
  }
  const domain = email.slice(email.lastIndexOf('@') + 1)
  if (!rules.allowedDomains.includes(domain)) {
    throw new SignOnRefused('email_domain_not_allowed', `Accounts of ${domain} may not sign in to this gateway.`)
  }
  return email
}

/**
 * The role the role claim names, or undefined when no role claim is configured. A person whose claim lists several
 * roles gets the strongest one Tollgate knows (`userRoles` is strongest first).
 */
export function mapRole(claims: Record<string, unknown>, rules: ClaimRules): UserRole | undefined {
  if (rules.roleClaim === undefined) return undefined
  const values = new Set(readClaim(claims, rules.roleClaim).map((value) => value.toLowerCase()))
  const role = userRoles.find((candidate) => values.has(candidate))
  if (!role) throw new SignOnRefused('no_role', 'Your identity provider gives you no role on this gateway. Ask an operator for access.')
  return role
}

/** The account the account claim names (by name, or by id when the value is a number), or undefined when none is configured. */
export async function mapAccount(
  accounts: AccountRepository,
  claims: Record<string, unknown>,
  rules: ClaimRules,
): Promise<AccountRecord | undefined> {
  if (rules.accountClaim === undefined) return undefined
  const [value] = readClaim(claims, rules.accountClaim)
  if (value === undefined)
    throw new SignOnRefused('no_account', 'Your identity provider names no account of this gateway for you. Ask an operator for access.')
  const account = (await accounts.findByName(value)) ?? (/^\d+$/.test(value) ? await accounts.findById(Number(value)) : undefined)
  if (!account)
    throw new SignOnRefused(
      'unknown_account',
      'The account your identity provider names for you does not exist on this gateway. Ask an operator.',
    )
  return account
}
