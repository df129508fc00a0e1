import { bigint, index, integer, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core'

const money = (name: string) => bigint(name, { mode: 'number' })
const time = (name: string) => bigint(name, { mode: 'number' })

// Money columns hold integer nano-dollars, time columns epoch milliseconds (as in schema.ts). The account's foreign
// key is in the migration: referencing schema.ts from here would make the two files import each other.

/** Where an account's alerts go (domain/alerts); the secret signs deliveries, so it is kept as made (records.ts). */
export const webhooks = pgTable(
  'webhooks',
  {
    id: text('id').primaryKey(),
    accountId: bigint('account_id', { mode: 'number' }).notNull(),
    projectId: text('project_id'),
    url: text('url').notNull(),
    secret: text('secret').notNull(),
    events: text('events').notNull(),
    balanceBelow: money('balance_below'),
    expiryDays: integer('expiry_days').notNull(),
    budgetPercents: text('budget_percents').notNull(),
    createdAt: time('created_at').notNull(),
    updatedAt: time('updated_at').notNull(),
  },
  (table) => [index('webhooks_account').on(table.accountId)],
)

/** One alert to one webhook, with its attempts; unique per (webhook, dedupe key): each threshold once per period. */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: text('id').primaryKey(),
    webhookId: text('webhook_id').notNull(),
    accountId: bigint('account_id', { mode: 'number' }).notNull(),
    event: text('event').notNull(),
    dedupeKey: text('dedupe_key').notNull(),
    payload: text('payload').notNull(),
    status: text('status').notNull(),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: time('next_attempt_at').notNull(),
    firstAttemptAt: time('first_attempt_at'),
    lastAttemptAt: time('last_attempt_at'),
    lastStatus: integer('last_status'),
    lastError: text('last_error'),
    claimedBy: text('claimed_by'),
    claimedUntil: time('claimed_until'),
    createdAt: time('created_at').notNull(),
    deliveredAt: time('delivered_at'),
  },
  (table) => [
    uniqueIndex('webhook_deliveries_once').on(table.webhookId, table.dedupeKey),
    index('webhook_deliveries_due').on(table.status, table.nextAttemptAt),
    index('webhook_deliveries_account').on(table.accountId, table.createdAt),
  ],
)
