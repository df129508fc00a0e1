import { bigint, index, integer, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core'
import { money, time } from './columns.ts'

// Batch work: tasks, their items, their files and the files' parts (domain/tasks). Kept apart from schema.ts (which
// re-exports them) so each file holds one area; time columns hold epoch milliseconds, money integer nano-dollars.

/** Batch work (domain/tasks), as in sqlite/schema.ts. */
export const tasks = pgTable(
  'tasks',
  {
    id: text('id').primaryKey(),
    kind: text('kind').notNull(),
    accountId: bigint('account_id', { mode: 'number' }).notNull(),
    keyId: text('key_id').notNull(),
    status: text('status').notNull(),
    endpoint: text('endpoint').notNull(),
    model: text('model'),
    inputFileId: text('input_file_id'),
    outputFileId: text('output_file_id'),
    errorFileId: text('error_file_id'),
    metadata: text('metadata'),
    displayName: text('display_name'),
    total: integer('total').notNull(),
    succeeded: integer('succeeded').notNull().default(0),
    failed: integer('failed').notNull().default(0),
    canceled: integer('canceled').notNull().default(0),
    expired: integer('expired').notNull().default(0),
    spent: money('spent').notNull().default(0),
    createdAt: time('created_at').notNull(),
    startedAt: time('started_at'),
    finishedAt: time('finished_at'),
    cancelRequestedAt: time('cancel_requested_at'),
    expiresAt: time('expires_at').notNull(),
  },
  (table) => [index('tasks_account_time').on(table.accountId, table.createdAt, table.id), index('tasks_status').on(table.status)],
)

export const taskItems = pgTable(
  'task_items',
  {
    id: text('id').primaryKey(),
    taskId: text('task_id').notNull(),
    seq: integer('seq').notNull(),
    customId: text('custom_id').notNull(),
    body: text('body').notNull(),
    status: text('status').notNull(),
    owner: text('owner'),
    leaseUntil: time('lease_until'),
    notBefore: time('not_before').notNull().default(0),
    staged: text('staged'),
    result: text('result'),
    statusCode: integer('status_code'),
    cost: money('cost').notNull().default(0),
    startedAt: time('started_at'),
    finishedAt: time('finished_at'),
  },
  (table) => [
    uniqueIndex('task_items_order').on(table.taskId, table.seq),
    index('task_items_status').on(table.status, table.taskId, table.seq),
  ],
)

export const taskFiles = pgTable(
  'task_files',
  {
    id: text('id').primaryKey(),
    accountId: bigint('account_id', { mode: 'number' }).notNull(),
    purpose: text('purpose').notNull(),
    filename: text('filename').notNull(),
    bytes: bigint('bytes', { mode: 'number' }).notNull(),
    taskId: text('task_id'),
    createdAt: time('created_at').notNull(),
    expiresAt: time('expires_at'),
  },
  (table) => [
    index('task_files_account_time').on(table.accountId, table.createdAt, table.id),
    index('task_files_created').on(table.createdAt),
  ],
)

export const taskFileParts = pgTable(
  'task_file_parts',
  {
    fileId: text('file_id').notNull(),
    seq: integer('seq').notNull(),
    data: text('data').notNull(),
  },
  (table) => [primaryKey({ columns: [table.fileId, table.seq] })],
)
