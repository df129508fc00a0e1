import { bigint, bigserial, index, pgTable, primaryKey, text } from 'drizzle-orm/pg-core'
import { time } from './columns.ts'
import { accounts } from './schema.ts'

// Console logins, their sessions, single sign-on identities and sign-ins in flight. Kept apart from schema.ts (which
// re-exports them); `accounts` is read only inside `references(() => …)`, after both files have loaded.

/** Console logins. `account_id` is null exactly for admins; deleting a user deletes its sessions. */
export const users = pgTable(
  'users',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    name: text('name').notNull().unique(),
    role: text('role', { enum: ['admin', 'account-admin', 'viewer'] }).notNull(),
    accountId: bigint('account_id', { mode: 'number' }).references(() => accounts.id),
    passwordHash: text('password_hash').notNull(),
    createdAt: time('created_at').notNull(),
    updatedAt: time('updated_at').notNull(),
  },
  (table) => [index('users_account').on(table.accountId)],
)

export const sessions = pgTable(
  'sessions',
  {
    id: text('id').primaryKey(),
    userId: bigint('user_id', { mode: 'number' })
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    csrfToken: text('csrf_token').notNull(),
    createdAt: time('created_at').notNull(),
    lastSeenAt: time('last_seen_at').notNull(),
    expiresAt: time('expires_at').notNull(),
  },
  (table) => [index('sessions_user').on(table.userId), index('sessions_expires').on(table.expiresAt)],
)

/** Single sign-on, as in sqlite/schema.ts. */
export const identities = pgTable(
  'identities',
  {
    issuer: text('issuer').notNull(),
    subject: text('subject').notNull(),
    userId: bigint('user_id', { mode: 'number' })
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    email: text('email'),
    createdAt: time('created_at').notNull(),
    lastSignInAt: time('last_sign_in_at').notNull(),
  },
  (table) => [primaryKey({ columns: [table.issuer, table.subject] }), index('identities_user').on(table.userId)],
)

export const signInFlows = pgTable(
  'sign_in_flows',
  {
    id: text('id').primaryKey(),
    nonce: text('nonce').notNull(),
    codeVerifier: text('code_verifier').notNull(),
    redirectUri: text('redirect_uri').notNull(),
    address: text('address').notNull(),
    createdAt: time('created_at').notNull(),
    expiresAt: time('expires_at').notNull(),
  },
  (table) => [index('sign_in_flows_expires').on(table.expiresAt), index('sign_in_flows_address').on(table.address)],
)
