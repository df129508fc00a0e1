import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'

/** Money columns hold integer nano-dollars; time columns hold epoch milliseconds. */
export const accounts = sqliteTable('accounts', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  name: text('name').notNull().unique(),
  balance: integer('balance').notNull().default(0),
  reserved: integer('reserved').notNull().default(0),
  createdAt: integer('created_at').notNull(),
})

export const ledgerEntries = sqliteTable(
  'ledger_entries',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id),
    amount: integer('amount').notNull(),
    balanceAfter: integer('balance_after').notNull(),
    note: text('note').notNull(),
    actor: text('actor').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (table) => [index('ledger_entries_account_time').on(table.accountId, table.createdAt)],
)

export const apiKeys = sqliteTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id),
    name: text('name'),
    prefix: text('prefix').notNull(),
    hash: text('hash').notNull().unique(),
    /** JSON array of model ids, or null for every model. */
    models: text('models'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
    revokedAt: integer('revoked_at'),
    lastUsedAt: integer('last_used_at'),
    rpm: integer('rpm'),
    tpm: integer('tpm'),
    concurrency: integer('concurrency'),
    budget: integer('budget'),
    expiresAt: integer('expires_at'),
    spent: integer('spent').notNull().default(0),
    /** Money held for this key's requests in flight, when it has a budget: spent + reserved never exceeds budget. */
    reserved: integer('reserved').notNull().default(0),
    /** JSON array of addresses and CIDR blocks the key may be used from, or null for every address. */
    allowedIps: text('allowed_ips'),
    /** The project the key belongs to, if any (its models, limits and budgets apply too). */
    projectId: integer('project_id'),
  },
  (table) => [index('api_keys_updated').on(table.updatedAt), index('api_keys_account').on(table.accountId)],
)

export const holds = sqliteTable('holds', {
  id: text('id').primaryKey(),
  accountId: integer('account_id')
    .notNull()
    .references(() => accounts.id),
  keyId: text('key_id').notNull(),
  /**
   * What the lease was granted over its life. What it still holds is kept in the serving process's memory
   * (db/sqlite/held-amounts.ts): a bill does not write this row, and a start zeroes `reserved` rather than reading it.
   */
  amount: integer('amount').notNull(),
  createdAt: integer('created_at').notNull(),
  /** Set when the hold also counts against this key's budget (api_keys.reserved). */
  budgetKeyId: text('budget_key_id'),
  /** The budget periods the hold counts against, `budget:start,…` (budget_periods.reserved). */
  budgetPeriods: text('budget_periods'),
  // No index on created_at here (dropped in 0017): nothing on SQLite reads a hold by its age.
})

/** A group of an account's keys: a model list a key's can only narrow, limits shared by its keys, budgets. */
export const projects = sqliteTable(
  'projects',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id),
    name: text('name').notNull(),
    models: text('models'),
    rpm: integer('rpm'),
    tpm: integer('tpm'),
    concurrency: integer('concurrency'),
    /** A JSON array of addresses and CIDR blocks its keys may be used from (as well as their own); NULL for every address. */
    allowedIps: text('allowed_ips'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (table) => [uniqueIndex('projects_account_name').on(table.accountId, table.name)],
)

/** An amount per period for an account, a project or a key (domain/budgets). */
export const budgets = sqliteTable(
  'budgets',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id),
    scope: text('scope').notNull(),
    projectId: integer('project_id'),
    keyId: text('key_id'),
    amount: integer('amount').notNull(),
    period: text('period').notNull(),
    timeZone: text('time_zone').notNull().default('UTC'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (table) => [index('budgets_account').on(table.accountId)],
)

/** What a budget spent and holds in one of its periods (period_start: epoch ms, 0 for total). */
export const budgetPeriods = sqliteTable(
  'budget_periods',
  {
    budgetId: integer('budget_id').notNull(),
    periodStart: integer('period_start').notNull(),
    spent: integer('spent').notNull().default(0),
    reserved: integer('reserved').notNull().default(0),
  },
  (table) => [primaryKey({ columns: [table.budgetId, table.periodStart] })],
)

/**
 * Every usage row, read as one table. On SQLite `usage_records` is a view of two (drizzle/sqlite/0019_usage_inbox.sql):
 * `usage_log`, which has these columns and the indexes below, and `usage_inbox`, the same columns and no index, where
 * bills land until the ledger moves them into the log (db/sqlite/usage-inbox.ts). Inserting into the view puts rows
 * into the inbox (a trigger).
 */
export const usageRecords = sqliteTable(
  'usage_records',
  {
    // The rowid, without AUTOINCREMENT: one page fewer a bill (drizzle/sqlite/0017_usage_rowid.sql says why it is safe).
    id: integer('id').primaryKey(),
    requestId: text('request_id').notNull(),
    accountId: integer('account_id').notNull(),
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
    cost: integer('cost').notNull(),
    status: integer('status').notNull(),
    errorType: text('error_type'),
    latencyMs: integer('latency_ms').notNull(),
    stream: integer('stream', { mode: 'boolean' }).notNull(),
    estimated: integer('estimated', { mode: 'boolean' }).notNull(),
    createdAt: integer('created_at').notNull(),
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
    // The console's request log filters by model; without this a rarely used model means scanning every row (200 ms
    // at a million rows, see bench/usage-log.ts). Filtering one account by model uses usage_account_time (worst case,
    // a model the account rarely used: ~64 ms at a million rows). An (account, model, time) index made that 0.2 ms but
    // cost every request ~1.5–2 µs of CPU to maintain, ~2% of the gateway's own cost, so it was dropped (0003).
    index('usage_model_time').on(table.model, table.createdAt, table.id),
  ],
)

/**
 * Usage rows older than `retention.requests_days`, folded into one row per UTC day, account, key, model, status and
 * operation
 * (the stores' `usage.fold`) and kept forever: summaries read these for folded days and usage_records for the rest.
 * `day` is the day's midnight (UTC, epoch ms).
 */
export const usageDaily = sqliteTable(
  'usage_daily',
  {
    day: integer('day').notNull(),
    accountId: integer('account_id').notNull(),
    keyId: text('key_id').notNull(),
    model: text('model').notNull(),
    status: integer('status').notNull(),
    requests: integer('requests').notNull(),
    inputTokens: integer('input_tokens').notNull(),
    cachedInputTokens: integer('cached_input_tokens').notNull(),
    cacheWriteTokens: integer('cache_write_tokens').notNull(),
    outputTokens: integer('output_tokens').notNull(),
    reasoningTokens: integer('reasoning_tokens').notNull(),
    cost: integer('cost').notNull(),
    operation: text('operation').notNull(),
    units: integer('units').notNull().default(0),
  },
  (table) => [
    primaryKey({ columns: [table.day, table.accountId, table.keyId, table.model, table.status, table.operation] }),
    index('usage_daily_account_day').on(table.accountId, table.day),
    index('usage_daily_key_day').on(table.keyId, table.day),
  ],
)

/** Admin API tokens: only the SHA-256 of each secret is kept (domain/admin-tokens.ts). */
export const adminTokens = sqliteTable('admin_tokens', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  scope: text('scope', { enum: ['read', 'full'] }).notNull(),
  prefix: text('prefix').notNull(),
  hash: text('hash').notNull().unique(),
  createdAt: integer('created_at').notNull(),
  lastUsedAt: integer('last_used_at'),
  revokedAt: integer('revoked_at'),
})

/**
 * Batches of lease releases applied (pruned after a day), so one written again after a lost answer is not applied
 * twice. Bills need none: a replayed one is found by its request id (sqlite/ledger.ts).
 */
export const ledgerBatches = sqliteTable(
  'ledger_batches',
  {
    id: text('id').primaryKey(),
    appliedAt: integer('applied_at').notNull(),
  },
  (table) => [index('ledger_batches_time').on(table.appliedAt)],
)

/**
 * The audit log (domain/audit): who changed what, when and from where, with the changed fields before and after as
 * JSON. Written in the transaction of each change; never updated (a trigger refuses it), deleted only by retention
 * (`retention.audit_days`). No foreign keys: a row outlives the object it is about.
 */
export const auditLog = sqliteTable(
  'audit_log',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    at: integer('at').notNull(),
    action: text('action').notNull(),
    objectType: text('object_type').notNull(),
    objectId: text('object_id'),
    accountId: integer('account_id'),
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
