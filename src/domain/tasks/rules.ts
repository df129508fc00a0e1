import { readErrorCode } from '../../core/error-codes.ts'
import { GatewayError } from '../../core/errors.ts'
import type { ItemError, ItemOutcome, TaskRecord, TaskStatus } from './records.ts'
import type { OrphanedItem } from './repository.ts'

/** The most items one task may hold (OpenAI's limit). */
export const maxItems = 50_000

/**
 * The largest input file and every batch's completion window: OpenAI's by default (config `tasks.max_file_bytes`,
 * `tasks.window_s`); the longest line of a file (one request: the live body cap); and what one account may keep
 * (`tasks.max_files_per_account`, `max_stored_bytes_per_account`, `max_open_batches_per_account`).
 */
export interface TaskLimits {
  maxFileBytes: number
  windowMs: number
  maxLineBytes: number
  maxFilesPerAccount: number
  maxStoredBytesPerAccount: number
  maxOpenBatchesPerAccount: number
}

export const defaultTaskLimits: TaskLimits = {
  maxFileBytes: 200 * 1024 * 1024,
  windowMs: 24 * 3600 * 1000,
  maxLineBytes: 32 * 1024 * 1024,
  maxFilesPerAccount: 1000,
  maxStoredBytesPerAccount: 1024 * 1024 * 1024,
  maxOpenBatchesPerAccount: 25,
}

/** A byte count as people read it ("200 MB", "1.5 KB", "10 bytes"), for the messages that name a limit. */
export function describeBytes(bytes: number): string {
  for (const [unit, size] of [
    ['MB', 1024 * 1024],
    ['KB', 1024],
  ] as const) {
    if (bytes >= size) return `${Number((bytes / size).toFixed(1))} ${unit}`
  }
  return `${bytes} bytes`
}

/** How a task whose items have all ended is finally marked: a cancel wins over an expiry, which wins over success. */
export function finalStatusOf(task: TaskRecord): TaskStatus {
  if (task.cancelRequestedAt !== null) return 'cancelled'
  if (task.expired > 0) return 'expired'
  return 'completed'
}

export function itemErrorOf(error: GatewayError): ItemError {
  return { kind: error.kind, status: error.status, code: error.code, message: error.message, param: error.param }
}

/** An item's stored error back as a GatewayError, for a protocol to render in its own shape. */
export function gatewayErrorOf(error: ItemError): GatewayError {
  return new GatewayError(error.kind, error.message, {
    code: error.code === undefined ? undefined : readErrorCode(error.code),
    param: error.param,
    status: error.status,
  })
}

/**
 * What an item found running after a crash becomes. Billed (its usage row, keyed by the item's id, exists): it ran to
 * its end, so it must not run again — its staged answer is its result; without one (the crash fell between the
 * commit and the staging, possible only where the two are separate writes) it ends errored at what it cost. Not
 * billed: undefined, it runs again (its hold was released at start).
 */
export function recoveredOutcome(orphan: OrphanedItem, at: number): ItemOutcome | undefined {
  const { billed, staged } = orphan
  if (!billed) return undefined
  if (billed.status === 200 && staged !== null) return { status: 'succeeded', statusCode: 200, result: staged, cost: billed.cost, at }
  const error: ItemError =
    billed.status === 200
      ? {
          kind: 'internal',
          status: 500,
          code: 'result_lost',
          message: 'The gateway restarted after this request was answered and billed, before its answer was stored.',
        }
      : {
          kind: billed.status >= 500 ? 'upstream' : 'invalid_request',
          status: billed.status,
          code: 'interrupted',
          message: `This request ended with status ${billed.status} as the gateway restarted.`,
        }
  return { status: 'errored', statusCode: error.status, result: JSON.stringify(error), cost: billed.cost, at }
}
