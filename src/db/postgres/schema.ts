import { money, time } from './columns.ts'
import { bigint, bigserial, boolean, index, integer, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core'

// The PostgreSQL twin of ../sqlite/schema.ts: same tables, columns and indexes, but for `instances` and
// `holds.instance_id` (SQLite has one server per file: sqlite/serve-lock.ts). Money and times are bigint
// (nano-dollars, epoch milliseconds), read back as JavaScript numbers (exact below 2^53).

export const accounts = pgTable('accounts', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  name: text('name').notNull().unique(),
  balance: money('balance').notNull().default(0),
  reserved: money('reserved').notNull().default(0),
  createdAt: time('created_at').notNull(),
})

export const ledgerEntries = pgTable(
  'ledger_entries',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    accountId: bigint('account_id', { mode: 'number' })
      .notNull()
      .references(() => accounts.id),
    amount: money('amount').notNull(),
    balanceAfter: money('balance_after').notNull(),
    note: text('note').notNull(),
    actor: text('actor').notNull(),
    createdAt: time('created_at').notNull(),
  },
  (table) => [index('ledger_entries_account_time').on(table.accountId, table.createdAt)],
)

export const apiKeys = pgTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    accountId: bigint('account_id', { mode: 'number' })
      .notNull()
      .references(() => accounts.id),
    name: text('name'),
    prefix: text('prefix').notNull(),
    hash: text('hash').notNull().unique(),
    models: text('models'),
    createdAt: time('created_at').notNull(),
    updatedAt: time('updated_at').notNull(),
    revokedAt: time('revoked_at'),
    lastUsedAt: time('last_used_at'),
    rpm: integer('rpm'),
    tpm: integer('tpm'),
    concurrency: integer('concurrency'),
    budget: money('budget'),
    expiresAt: time('expires_at'),
    spent: money('spent').notNull().default(0),
    /** Money held for this key's requests in flight, when it has a budget: spent + reserved never exceeds budget. */
    reserved: money('reserved').notNull().default(0),
    /** JSON array of addresses and CIDR blocks the key may be used from, or null for every address. */
    allowedIps: text('allowed_ips'),
    /** The project the key belongs to, if any (its models, limits and budgets apply too). */
    projectId: bigint('project_id', { mode: 'number' }),
  },
  (table) => [index('api_keys_updated').on(table.updatedAt), index('api_keys_account').on(table.accountId)],
)

export const holds = pgTable(
  'holds',
  {
    id: text('id').primaryKey(),
    accountId: bigint('account_id', { mode: 'number' })
      .notNull()
      .references(() => accounts.id),
    keyId: text('key_id').notNull(),
    amount: money('amount').notNull(),
    createdAt: time('created_at').notNull(),
    /** Set when the hold also counts against this key's budget (api_keys.reserved). */
    budgetKeyId: text('budget_key_id'),
    /** The gateway instance that placed it (instances.id); null for holds from before instances were recorded. */
    instanceId: text('instance_id'),
    /** The budget periods the hold counts against, `budget:start,…` (budget_periods.reserved). */
    budgetPeriods: text('budget_periods'),
  },
  (table) => [index('holds_created').on(table.createdAt)],
)

/** A group of an account's keys: a model list a key's can only narrow, limits shared by its keys, budgets. */
export const projects = pgTable(
  'projects',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    accountId: bigint('account_id', { mode: 'number' })
      .notNull()
      .references(() => accounts.id),
    name: text('name').notNull(),
    models: text('models'),
    rpm: integer('rpm'),
    tpm: integer('tpm'),
    concurrency: integer('concurrency'),
    /** A JSON array of addresses and CIDR blocks its keys may be used from (as well as their own); NULL for every address. */
    allowedIps: text('allowed_ips'),
    createdAt: time('created_at').notNull(),
    updatedAt: time('updated_at').notNull(),
  },
  (table) => [uniqueIndex('projects_account_name').on(table.accountId, table.name)],
)

/** An amount per period for an account, a project or a key (domain/budgets). */
export const budgets = pgTable(
  'budgets',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    accountId: bigint('account_id', { mode: 'number' })
      .notNull()
      .references(() => accounts.id),
    scope: text('scope').notNull(),
    projectId: bigint('project_id', { mode: 'number' }),
    keyId: text('key_id'),
    amount: money('amount').notNull(),
    period: text('period').notNull(),
    timeZone: text('time_zone').notNull().default('UTC'),
    createdAt: time('created_at').notNull(),
    updatedAt: time('updated_at').notNull(),
  },
  (table) => [index('budgets_account').on(table.accountId)],
)

/** What a budget spent and holds in one of its periods (period_start: epoch ms, 0 for total). */
export const budgetPeriods = pgTable(
  'budget_periods',
  {
    budgetId: bigint('budget_id', { mode: 'number' }).notNull(),
    periodStart: time('period_start').notNull(),
    spent: money('spent').notNull().default(0),
    reserved: money('reserved').notNull().default(0),
  },
  (table) => [primaryKey({ columns: [table.budgetId, table.periodStart] })],
)

/**
 * Gateway instances serving from this database, each with a heartbeat (epoch ms, the database's clock): a hold is
 * released by another instance only once its owner's heartbeat is older than the timeout (db/postgres/instances.ts).
 */
export const instances = pgTable('instances', {
  id: text('id').primaryKey(),
  startedAt: time('started_at').notNull(),
  heartbeatAt: time('heartbeat_at').notNull(),
})

export const usageRecords = pgTable(
  'usage_records',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    requestId: text('request_id').notNull(),
    accountId: bigint('account_id', { mode: 'number' }).notNull(),
    keyId: text('key_id').notNull(),
    model: text('model').notNull(),
    provider: text('provider').notNull(),
    upstreamModel: text('upstream_model').notNull(),
    protocol: text('protocol').notNull(),
    inputTokens: integer('input_tokens').notNull(),
    cachedInputTokens: integer('cached_input_tokens').notNull(),
    cacheWriteTokens: integer('cache_write_tokens').notNull(),
    outputTokens: integer('output_tokens').notNull(),
    reasoningTokens: integer('reasoning_tokens').notNull(),
    cost: money('cost').notNull(),
    status: integer('status').notNull(),
    errorType: text('error_type'),
    latencyMs: integer('latency_ms').notNull(),
    stream: boolean('stream').notNull(),
    estimated: boolean('estimated').notNull(),
    createdAt: time('created_at').notNull(),
    /**
     * The operation billed and how much of its own unit it used (embeddings: inputs). Every row names its operation;
     * the migration that added the column (`*_usage_operation`) gave the rows before it the only one there was: chat.
     */
    operation: text('operation').notNull(),
    units: integer('units').notNull().default(0),
  },
  (table) => [
    index('usage_account_time').on(table.accountId, table.createdAt, table.id),
    index('usage_key_time').on(table.keyId, table.createdAt, table.id),
    index('usage_time').on(table.createdAt, table.id),
    // The console's request log filters by model (see the SQLite twin and bench/usage-log.ts).
    index('usage_model_time').on(table.model, table.createdAt, table.id),
    // One row per request: a bill replayed from a spool, or written again after a lost answer, is a no-op.
    uniqueIndex('usage_request').on(table.requestId),
  ],
)

/** Batches of lease releases applied (pruned after a day), so one written again after a lost answer is not applied twice. */
export const ledgerBatches = pgTable('ledger_batches', {
  id: text('id').primaryKey(),
  appliedAt: time('applied_at').notNull(),
})

/** The twin of ../sqlite/schema.ts usageDaily: folded usage, one row per UTC day, account, key, model and status. */
export const usageDaily = pgTable(
  'usage_daily',
  {
    day: time('day').notNull(),
    accountId: bigint('account_id', { mode: 'number' }).notNull(),
    keyId: text('key_id').notNull(),
    model: text('model').notNull(),
    status: integer('status').notNull(),
    requests: bigint('requests', { mode: 'number' }).notNull(),
    inputTokens: bigint('input_tokens', { mode: 'number' }).notNull(),
    cachedInputTokens: bigint('cached_input_tokens', { mode: 'number' }).notNull(),
    cacheWriteTokens: bigint('cache_write_tokens', { mode: 'number' }).notNull(),
    outputTokens: bigint('output_tokens', { mode: 'number' }).notNull(),
    reasoningTokens: bigint('reasoning_tokens', { mode: 'number' }).notNull(),
    cost: money('cost').notNull(),
    operation: text('operation').notNull(),
    units: bigint('units', { mode: 'number' }).notNull().default(0),
  },
  (table) => [
    primaryKey({ columns: [table.day, table.accountId, table.keyId, table.model, table.status, table.operation] }),
    index('usage_daily_account_day').on(table.accountId, table.day),
    index('usage_daily_key_day').on(table.keyId, table.day),
  ],
)

/** Admin API tokens, as in sqlite/schema.ts. */
export const adminTokens = pgTable('admin_tokens', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  scope: text('scope', { enum: ['read', 'full'] }).notNull(),
  prefix: text('prefix').notNull(),
  hash: text('hash').notNull().unique(),
  createdAt: time('created_at').notNull(),
  lastUsedAt: time('last_used_at'),
  revokedAt: time('revoked_at'),
})

/** The audit log: the twin of sqlite/schema.ts's, append-only the same way (a trigger refuses any UPDATE). */
export const auditLog = pgTable(
  'audit_log',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    at: time('at').notNull(),
    action: text('action').notNull(),
    objectType: text('object_type').notNull(),
    objectId: text('object_id'),
    accountId: bigint('account_id', { mode: 'number' }),
    actorKind: text('actor_kind').notNull(),
    actorId: text('actor_id'),
    actorLabel: text('actor_label').notNull(),
    address: text('address'),
    before: text('before'),
    after: text('after'),
  },
  (table) => [
    index('audit_log_time').on(table.at, table.id),
    index('audit_log_account_time').on(table.accountId, table.at, table.id),
    index('audit_log_object_time').on(table.objectType, table.objectId, table.at),
    index('audit_log_actor_time').on(table.actorLabel, table.at),
  ],
)

// Webhooks and their deliveries (issue 27's alerts), in a file of their own.
export * from './webhook-schema.ts'
export * from './task-schema.ts'
export * from './login-schema.ts'
