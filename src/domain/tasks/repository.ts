import type { BilledUsage, FileRecord, ItemOutcome, ItemRecord, NewItem, TaskKind, TaskRecord, TaskStatus } from './records.ts'
import type { FileQuota, FileQuotaOutcome, StoredFiles } from './quotas.ts'
import type { AuditNote } from '../audit/records.ts'

export interface TaskPage {
  limit: number
  /** Newest first: only tasks strictly older than this one (keyset paging). */
  olderThan?: { createdAt: number; id: string }
  /** Oldest first from here: only tasks strictly newer than this one (then reversed to newest first). */
  newerThan?: { createdAt: number; id: string }
  kind?: TaskKind
}

export interface FilePage {
  limit: number
  order: 'asc' | 'desc'
  after?: { createdAt: number; id: string }
  purpose?: string
}

/** How one item ended (finishItems). */
export interface ItemEnd {
  itemId: string
  outcome: ItemOutcome
}

export interface ClaimedItem {
  item: ItemRecord
  task: TaskRecord
}

/** An item found running with no live owner (a crash): its staged answer, and its usage row if it was billed. */
export interface OrphanedItem {
  item: ItemRecord
  task: TaskRecord
  staged: string | null
  billed: BilledUsage | undefined
}

/**
 * Where tasks, their items and files live. Every state change of an item is guarded by its current state and owner,
 * so a change made twice (a retry, a second instance) changes nothing the second time.
 *
 * Work that touches many rows (a task's 50,000 items written, ended or deleted; a file's parts deleted) must not hold
 * the event loop: on SQLite, whose calls are synchronous, it is done in short transactions with yields between them,
 * ordered so that what a crash cuts short is never seen (items before their task, a task before its items) and
 * `removeLeftovers` clears it at the next start.
 */
export interface TaskRepository {
  /** Files are written part by part (each a run of whole lines), their record last: a half-written file is never listed. */
  insertFilePart(fileId: string, seq: number, data: string): Promise<void>
  /**
   * The file's record; with a quota, only if the account's uploaded files (`purpose` batch) stay within it, counted
   * in the same transaction as the insert (else nothing is written and the quota passed is returned).
   */
  insertFile(file: FileRecord, quota?: FileQuota): Promise<FileQuotaOutcome>
  /** The account's uploaded (`purpose` batch) files: how many, and their bytes. */
  storedFiles(accountId: number): Promise<StoredFiles>
  findFile(id: string): Promise<FileRecord | undefined>
  listFiles(accountId: number, page: FilePage): Promise<FileRecord[]>
  fileParts(fileId: string, fromSeq: number, limit: number): Promise<{ seq: number; data: string }[]>
  deleteFile(id: string): Promise<boolean>

  /**
   * The task and every item, seen together or not at all; false (nothing written) when the account already has
   * `maxOpen` tasks not yet ended, counted as the task is written.
   */
  createTask(task: TaskRecord, items: NewItem[], maxOpen?: number): Promise<boolean>
  /** The account's tasks not yet ended. */
  openTaskCount(accountId: number): Promise<number>
  findTask(id: string): Promise<TaskRecord | undefined>
  listTasks(accountId: number, page: TaskPage): Promise<TaskRecord[]>
  deleteTask(id: string): Promise<boolean>
  /**
   * Stop starting items: the task turns `cancelling`, its pending items `canceled` (and the audit row is written), in
   * one transaction. Undefined when it had ended.
   */
  requestCancel(id: string, at: number, audit?: AuditNote<TaskRecord>): Promise<TaskRecord | undefined>
  /** Items in input order, from `afterSeq` (exclusive). */
  items(taskId: string, afterSeq: number, limit: number): Promise<ItemRecord[]>

  /**
   * Take up to `max` pending items, in one transaction: the next ones of the oldest runnable tasks, an item only when
   * `take(accountId)` agrees (it counts what it agrees to: the runner's per-account limit), each marked running under
   * `owner` until `leaseUntil`; their tasks turn `in_progress`. Atomic across instances.
   */
  claimItems(owner: string, now: number, leaseUntil: number, max: number, take: (accountId: number) => boolean): Promise<ClaimedItem[]>
  /** The answer, written before its bill commits: a crash after the commit still finds it (OrphanedItem.staged). */
  stageResult(itemId: string, owner: string, body: string): Promise<void>
  /**
   * End running items of `owner`, each added to its task's counts and spend, all in one transaction (a commit per item
   * was most of what an item refused for money cost). For each, false if it was not ours.
   */
  finishItems(owner: string, ends: ItemEnd[]): Promise<boolean[]>
  /** Give a running item back, to be started again at `notBefore` (refused by its key's rate limits). */
  deferItem(itemId: string, owner: string, notBefore: number): Promise<void>
  renewLeases(owner: string, leaseUntil: number): Promise<void>
  /**
   * Items running under another owner whose lease ran out (or, with `anyOtherOwner`, every one: SQLite's serve lock
   * proves no other server is alive), adopted by `owner`, each with its staged answer and its usage row if billed.
   */
  adoptOrphans(owner: string, now: number, leaseUntil: number, anyOtherOwner: boolean): Promise<OrphanedItem[]>
  /**
   * Whether the runner's poll has anything to look at: a task open (queued, in progress, cancelling) or an item
   * running (whatever its task's state). Two index seeks: an idle store's poll asks only this.
   */
  hasWork(): Promise<boolean>
  /** Put an adopted item back to pending (it was never billed). */
  requeueItem(itemId: string, owner: string): Promise<void>
  /** Tasks past their window: pending items end `expired`. Returns the tasks touched. */
  expireDue(now: number): Promise<number>
  /** Active tasks with no item pending or running: ready to end. */
  finishableTasks(): Promise<TaskRecord[]>
  finalizeTask(
    id: string,
    status: TaskStatus,
    at: number,
    files?: { outputFileId: string | null; errorFileId: string | null },
  ): Promise<boolean>
  /** Delete tasks that ended before `before` and output files made before it, input files past their expiry (`now`). */
  purge(before: number, now: number): Promise<{ tasks: number; files: number }>
  /** At start: rows a crash left half-written or half-deleted (items with no task, parts with no file). */
  removeLeftovers(): Promise<number>
}
