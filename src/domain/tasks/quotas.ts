import { GatewayError } from '../../core/errors.ts'
import { describeBytes, type TaskLimits } from './rules.ts'

/**
 * What one account may keep: uploaded files (their number and bytes, `tasks.max_files_per_account` and
 * `max_stored_bytes_per_account`) and batches not yet ended (`tasks.max_open_batches_per_account`). Each is checked
 * before the work starts (cheap) and again as the record is written, where two requests at once are counted together.
 */

/** An account's uploaded files (the gateway's own output files are not counted: their size follows the batches). */
export interface StoredFiles {
  files: number
  bytes: number
}

/** How writing a file's record went: stored, or refused by the files or the bytes quota. */
export type FileQuotaOutcome = 'stored' | 'files' | 'bytes'

export type FileQuota = Pick<TaskLimits, 'maxFilesPerAccount' | 'maxStoredBytesPerAccount'>

/** Would one more file of `adding` bytes pass a quota? */
export function quotaPassed(stored: StoredFiles, adding: number, quota: FileQuota): Exclude<FileQuotaOutcome, 'stored'> | undefined {
  if (stored.files + 1 > quota.maxFilesPerAccount) return 'files'
  if (stored.bytes + adding > quota.maxStoredBytesPerAccount) return 'bytes'
  return undefined
}

/** A 400 when one more file (of `adding` bytes; 0 before its size is known) would pass a quota. */
export function refuseStoring(stored: StoredFiles, adding: number, quota: FileQuota): void {
  const passed = quotaPassed(stored, adding, quota)
  if (passed) throw storageRefusal(passed, quota)
}

export function storedOrRefused(outcome: FileQuotaOutcome, quota: FileQuota): void {
  if (outcome !== 'stored') throw storageRefusal(outcome, quota)
}

function storageRefusal(passed: 'files' | 'bytes', quota: FileQuota): GatewayError {
  if (passed === 'files') {
    return new GatewayError(
      'invalid_request',
      `This account stores ${quota.maxFilesPerAccount} files, as many as it may: delete one first.`,
      { code: 'file_quota_exceeded', param: 'file' },
    )
  }
  return new GatewayError(
    'invalid_request',
    `This file would take the account's stored files past ${describeBytes(quota.maxStoredBytesPerAccount)} (${quota.maxStoredBytesPerAccount} bytes): delete some first.`,
    { code: 'storage_quota_exceeded', param: 'file' },
  )
}

/** A 429: the account has as many batches not yet ended as it may; one must end (or be cancelled) first. */
export function refuseOpenBatches(maxOpen: number): never {
  throw new GatewayError(
    'rate_limit',
    `This account has ${maxOpen} batches not yet ended, as many as it may have at once: wait for one to end, or cancel one.`,
    { code: 'too_many_open_batches' },
  )
}
