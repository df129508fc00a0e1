import type { AuditNote } from '../audit/records.ts'
import type { UserRecord } from '../records.ts'

/**
 * Single sign-on's rows: which provider identity a console login is, and the sign-ins sent to the provider that
 * have not come back yet. Times are epoch milliseconds.
 */

/** A provider's `(issuer, subject)` pair, linked to one console login. `sub` never changes; an email may. */
export interface IdentityRecord {
  issuer: string
  subject: string
  userId: number
  /** The email the provider last gave, for operators reading the table. */
  email: string | null
  createdAt: number
  lastSignInAt: number
}

/**
 * A sign-in sent to the provider. `id` is the SHA-256 of its `state`; the callback takes (deletes) it, so a state
 * works once, on whichever instance the browser comes back to. The PKCE verifier and nonce never leave the server.
 */
export interface FlowRecord {
  id: string
  nonce: string
  codeVerifier: string
  /** The callback URL sent with the authorization request: the token request must repeat it exactly. */
  redirectUri: string
  /** The client address that started it: one address may only have so many in progress. */
  address: string
  createdAt: number
  expiresAt: number
}

export interface IdentityRepository {
  findIdentity(issuer: string, subject: string): Promise<IdentityRecord | undefined>
  /** The identities linked to a login (none for a local login or one still waiting for its first sign-on). */
  listForUser(userId: number): Promise<IdentityRecord[]>
  /** A new login and its identity (and its audit row), in one transaction: a login is never left half made. */
  createLinkedUser(
    user: Omit<UserRecord, 'id'>,
    identity: Omit<IdentityRecord, 'userId'>,
    audit?: AuditNote<UserRecord>,
  ): Promise<UserRecord>
  link(identity: IdentityRecord): Promise<void>
  recordSignIn(issuer: string, subject: string, email: string | null, at: number): Promise<void>
  saveFlow(flow: FlowRecord): Promise<void>
  /** Deletes and returns the flow; undefined when unknown, already taken or expired. */
  takeFlow(id: string, now: number): Promise<FlowRecord | undefined>
  /** Flows not yet expired, of one address or of all (bounds on what anonymous visitors can leave behind). */
  countFlows(now: number, address?: string): Promise<number>
  deleteExpiredFlows(now: number): Promise<number>
}
