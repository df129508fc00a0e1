import type { ErrorKind } from '../../core/errors.ts'

/**
 * Batch work ("tasks"): one record per batch, one per item, and the files OpenAI clients upload and download.
 * Money is integer nano-dollars, times epoch milliseconds, as everywhere else.
 */

/** Whose wire shape the task was submitted in, and is shown in. */
export type TaskKind = 'openai' | 'anthropic' | 'gemini'

/** The neutral status (PROTOCOLS.md F5); each protocol maps it to its own words. */
export type TaskStatus = 'queued' | 'in_progress' | 'completed' | 'failed' | 'cancelling' | 'cancelled' | 'expired'

/** Items still to start or running, and the four ways an item ends. */
export type ItemStatus = 'pending' | 'running' | 'succeeded' | 'errored' | 'canceled' | 'expired'

export interface TaskRecord {
  id: string
  kind: TaskKind
  accountId: number
  /** The key that submitted it: its model list, limits and budget apply to every item. */
  keyId: string
  status: TaskStatus
  /** OpenAI: `/v1/chat/completions` or `/v1/responses`; Anthropic: `/v1/messages`; Gemini: `generateContent`. */
  endpoint: string
  /** Gemini: the model of the whole batch; otherwise null (each item names its own). */
  model: string | null
  inputFileId: string | null
  outputFileId: string | null
  errorFileId: string | null
  metadata: Record<string, unknown> | null
  displayName: string | null
  total: number
  succeeded: number
  failed: number
  canceled: number
  expired: number
  /** The sum of its items' costs so far. */
  spent: number
  createdAt: number
  startedAt: number | null
  finishedAt: number | null
  cancelRequestedAt: number | null
  /** The end of its completion window: unfinished items then end `expired`. */
  expiresAt: number
}

/** Why an item failed, protocol-neutral: each protocol renders it in its own error shape. */
export interface ItemError {
  kind: ErrorKind
  status: number
  code?: string
  message: string
  param?: string
}

export interface ItemRecord {
  id: string
  taskId: string
  /** Its position in the input (0-based): results keep input order. */
  seq: number
  customId: string
  /** The item's request body as JSON text, in the task's protocol. */
  body: string
  status: ItemStatus
  /** succeeded: the answer's body (JSON text, in the task's protocol); errored: an ItemError as JSON text. */
  result: string | null
  statusCode: number | null
  cost: number
  startedAt: number | null
  finishedAt: number | null
}

export interface NewItem {
  id: string
  seq: number
  customId: string
  body: string
}

export type FilePurpose = 'batch' | 'batch_output'

export interface FileRecord {
  id: string
  accountId: number
  purpose: FilePurpose
  filename: string
  bytes: number
  /** The batch that wrote it (output and error files). */
  taskId: string | null
  createdAt: number
  expiresAt: number | null
}

/** How an item ended, as the runner reports it. */
export interface ItemOutcome {
  status: 'succeeded' | 'errored' | 'canceled' | 'expired'
  statusCode: number | null
  result: string | null
  cost: number
  at: number
}

/** The usage row a crashed run of an item left, found by its request id (the item's id). */
export interface BilledUsage {
  status: number
  cost: number
}
