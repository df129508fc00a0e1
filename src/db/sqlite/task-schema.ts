import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'

// Batch work: tasks, their items, their files and the files' parts (domain/tasks). Kept apart from schema.ts (which
// re-exports them) so each file holds one area; time columns hold epoch milliseconds, money integer nano-dollars.

/** Batch work (domain/tasks): one row per batch; its counts and spend move with each item's end, in one transaction. */
export const tasks = sqliteTable(
  'tasks',
  {
    id: text('id').primaryKey(),
    kind: text('kind').notNull(),
    accountId: integer('account_id').notNull(),
    keyId: text('key_id').notNull(),
    status: text('status').notNull(),
    endpoint: text('endpoint').notNull(),
    model: text('model'),
    inputFileId: text('input_file_id'),
    outputFileId: text('output_file_id'),
    errorFileId: text('error_file_id'),
    /** JSON object, or null. */
    metadata: text('metadata'),
    displayName: text('display_name'),
    total: integer('total').notNull(),
    succeeded: integer('succeeded').notNull().default(0),
    failed: integer('failed').notNull().default(0),
    canceled: integer('canceled').notNull().default(0),
    expired: integer('expired').notNull().default(0),
    spent: integer('spent').notNull().default(0),
    createdAt: integer('created_at').notNull(),
    startedAt: integer('started_at'),
    finishedAt: integer('finished_at'),
    cancelRequestedAt: integer('cancel_requested_at'),
    expiresAt: integer('expires_at').notNull(),
  },
  (table) => [index('tasks_account_time').on(table.accountId, table.createdAt, table.id), index('tasks_status').on(table.status)],
)

/** One request of a batch. `owner` + `lease_until` is the claim of the instance running it; `staged` its answer before the bill commits. */
export const taskItems = sqliteTable(
  'task_items',
  {
    id: text('id').primaryKey(),
    taskId: text('task_id').notNull(),
    seq: integer('seq').notNull(),
    customId: text('custom_id').notNull(),
    body: text('body').notNull(),
    status: text('status').notNull(),
    owner: text('owner'),
    leaseUntil: integer('lease_until'),
    notBefore: integer('not_before').notNull().default(0),
    staged: text('staged'),
    result: text('result'),
    statusCode: integer('status_code'),
    cost: integer('cost').notNull().default(0),
    startedAt: integer('started_at'),
    finishedAt: integer('finished_at'),
  },
  (table) => [
    uniqueIndex('task_items_order').on(table.taskId, table.seq),
    // The runner's next pending item of a task, and "is anything left?", both walk this.
    index('task_items_status').on(table.status, table.taskId, table.seq),
  ],
)

export const taskFiles = sqliteTable(
  'task_files',
  {
    id: text('id').primaryKey(),
    accountId: integer('account_id').notNull(),
    purpose: text('purpose').notNull(),
    filename: text('filename').notNull(),
    bytes: integer('bytes').notNull(),
    taskId: text('task_id'),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at'),
  },
  (table) => [
    index('task_files_account_time').on(table.accountId, table.createdAt, table.id),
    index('task_files_created').on(table.createdAt),
  ],
)

/** A file's text in parts of whole lines, so neither an upload nor a download is held whole in memory. */
export const taskFileParts = sqliteTable(
  'task_file_parts',
  {
    fileId: text('file_id').notNull(),
    seq: integer('seq').notNull(),
    data: text('data').notNull(),
  },
  (table) => [primaryKey({ columns: [table.fileId, table.seq] })],
)
