import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { accounts } from './schema.ts'

// Console logins, their sessions, single sign-on identities and sign-ins in flight. Kept apart from schema.ts (which
// re-exports them); `accounts` is read only inside `references(() => …)`, after both files have loaded.

/** Console logins. `account_id` is null exactly for admins; deleting a user deletes its sessions. */
export const users = sqliteTable(
  'users',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    name: text('name').notNull().unique(),
    role: text('role', { enum: ['admin', 'account-admin', 'viewer'] }).notNull(),
    accountId: integer('account_id').references(() => accounts.id),
    passwordHash: text('password_hash').notNull(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (table) => [index('users_account').on(table.accountId)],
)

export const sessions = sqliteTable(
  'sessions',
  {
    id: text('id').primaryKey(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    csrfToken: text('csrf_token').notNull(),
    createdAt: integer('created_at').notNull(),
    lastSeenAt: integer('last_seen_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
  },
  (table) => [index('sessions_user').on(table.userId), index('sessions_expires').on(table.expiresAt)],
)

/** Single sign-on (domain/single-sign-on): the provider identity each SSO login is; deleting a login unlinks it. */
export const identities = sqliteTable(
  'identities',
  {
    issuer: text('issuer').notNull(),
    subject: text('subject').notNull(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    email: text('email'),
    createdAt: integer('created_at').notNull(),
    lastSignInAt: integer('last_sign_in_at').notNull(),
  },
  (table) => [primaryKey({ columns: [table.issuer, table.subject] }), index('identities_user').on(table.userId)],
)

/** Sign-ins sent to the identity provider and not back yet; `id` is the SHA-256 of the `state` sent. */
export const signInFlows = sqliteTable(
  'sign_in_flows',
  {
    id: text('id').primaryKey(),
    nonce: text('nonce').notNull(),
    codeVerifier: text('code_verifier').notNull(),
    redirectUri: text('redirect_uri').notNull(),
    address: text('address').notNull(),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
  },
  (table) => [index('sign_in_flows_expires').on(table.expiresAt), index('sign_in_flows_address').on(table.address)],
)
