import { randomBase62 } from '../../core/ids.ts'
import { Pacer } from '../../core/pace.ts'
import type { Actor } from '../actor.ts'
import { auditChange } from '../audit/note.ts'
import { taskObject } from '../audit/objects.ts'
import { LineMeter, splitLines } from './lines.ts'
import type { FilePurpose, FileRecord, ItemRecord, NewItem, TaskKind, TaskRecord } from './records.ts'
import type { TaskPage, TaskRepository } from './repository.ts'
import { defaultTaskLimits, describeBytes, type TaskLimits } from './rules.ts'
import { refuseOpenBatches, refuseStoring, storedOrRefused } from './quotas.ts'

const partBytes = 1024 * 1024
const idPrefixes: Record<TaskKind, string> = { openai: 'batch_', anthropic: 'msgbatch_', gemini: '' }

export interface NewTask {
  kind: TaskKind
  accountId: number
  keyId: string
  endpoint: string
  model?: string | null
  inputFileId?: string | null
  metadata?: Record<string, unknown> | null
  displayName?: string | null
  items: Omit<NewItem, 'id' | 'seq'>[]
}

/**
 * Stop starting a task's items, recorded in the audit log as `task.cancel` by `actor` (a key's holder, an operator's
 * CLI); undefined when it had already ended (and then nothing is recorded). The running gateway notices on its next
 * sweep: running items finish and are billed, the task then ends `cancelled`.
 */
export function cancelTask(repository: TaskRepository, id: string, actor: Actor, at: number): Promise<TaskRecord | undefined> {
  return repository.requestCancel(id, at, auditChange(actor, 'task.cancel', taskObject, { at }))
}

/** A file too large, or not text: the protocol says so in its shape. */
export class FileTooLargeError extends Error {}

/**
 * Tasks and files as the endpoints see them: everything is scoped to the calling account, and a task or file of
 * another account is indistinguishable from one that does not exist (undefined, answered as 404).
 */
export class TaskService {
  /** Told when there is new work (the runner wakes up instead of waiting for its next poll). */
  onWork: () => void = () => {}
  /** The last creation time given out: see `createdNow`. */
  private lastCreated = 0

  constructor(
    readonly repository: TaskRepository,
    private readonly clock: () => number = Date.now,
    readonly limits: TaskLimits = defaultTaskLimits,
  ) {}

  /**
   * A creation time later than any given before by this service: lists page newest first by (created_at, id), and two
   * batches made within one millisecond would otherwise come back in the order of their random ids.
   */
  private createdNow(): number {
    this.lastCreated = Math.max(this.clock(), this.lastCreated + 1)
    return this.lastCreated
  }

  async create(input: NewTask): Promise<TaskRecord> {
    const now = this.createdNow()
    const id = input.kind === 'gemini' ? randomBase62(24).toLowerCase() : `${idPrefixes[input.kind]}${randomBase62(24)}`
    const task: TaskRecord = {
      id,
      kind: input.kind,
      accountId: input.accountId,
      keyId: input.keyId,
      status: 'queued',
      endpoint: input.endpoint,
      model: input.model ?? null,
      inputFileId: input.inputFileId ?? null,
      outputFileId: null,
      errorFileId: null,
      metadata: input.metadata ?? null,
      displayName: input.displayName ?? null,
      total: input.items.length,
      succeeded: 0,
      failed: 0,
      canceled: 0,
      expired: 0,
      spent: 0,
      createdAt: now,
      startedAt: null,
      finishedAt: null,
      cancelRequestedAt: null,
      expiresAt: now + this.limits.windowMs,
    }
    const items = input.items.map(
      (item, seq): NewItem => ({ id: `batch_req_${randomBase62(24)}`, seq, customId: item.customId, body: item.body }),
    )
    // Counted again as the task is written (two creations at once must not both take the last place).
    const { maxOpenBatchesPerAccount } = this.limits
    if (!(await this.repository.createTask(task, items, maxOpenBatchesPerAccount))) refuseOpenBatches(maxOpenBatchesPerAccount)
    this.onWork()
    return task
  }

  /** Before a batch is checked: a 429 when its account has as many batches running as it may (the check is cheap). */
  async admitBatch(accountId: number): Promise<void> {
    const { maxOpenBatchesPerAccount } = this.limits
    if ((await this.repository.openTaskCount(accountId)) >= maxOpenBatchesPerAccount) refuseOpenBatches(maxOpenBatchesPerAccount)
  }

  /** Before an upload is read: a 400 when its account stores as many files, or bytes, as it may. */
  async admitUpload(accountId: number): Promise<void> {
    refuseStoring(await this.repository.storedFiles(accountId), 0, this.limits)
  }

  async find(accountId: number, id: string): Promise<TaskRecord | undefined> {
    const task = await this.repository.findTask(id)
    return task?.accountId === accountId ? task : undefined
  }

  /** Newest first; `after`/`before` name a task of the same account (an unknown one pages from the start). */
  async list(
    accountId: number,
    options: { limit: number; after?: string; before?: string; kind?: TaskKind },
  ): Promise<{ tasks: TaskRecord[]; hasMore: boolean }> {
    const page: TaskPage = { limit: options.limit + 1, kind: options.kind }
    const after = options.after ? await this.find(accountId, options.after) : undefined
    const before = options.before ? await this.find(accountId, options.before) : undefined
    if (after) page.olderThan = after
    else if (before) page.newerThan = before
    const tasks = await this.repository.listTasks(accountId, page)
    const hasMore = tasks.length > options.limit
    if (hasMore) page.newerThan ? tasks.shift() : tasks.pop()
    return { tasks, hasMore }
  }

  /** Stop a task of this account; `actor` (its key's holder, an operator) is recorded in the audit log as `task.cancel`. */
  async cancel(accountId: number, id: string, actor: Actor): Promise<TaskRecord | undefined> {
    const task = await this.find(accountId, id)
    if (!task) return undefined
    await cancelTask(this.repository, id, actor, this.clock())
    this.onWork()
    return this.repository.findTask(id)
  }

  /** Delete a task that has ended; false when it is still running (the caller says so). */
  async delete(accountId: number, id: string): Promise<'deleted' | 'running' | undefined> {
    const task = await this.find(accountId, id)
    if (!task) return undefined
    if (task.finishedAt === null) return 'running'
    await this.repository.deleteTask(id)
    return 'deleted'
  }

  /** Every item of a task, in input order, a page at a time (yielding between pages: a task may hold 50,000). */
  async *items(taskId: string): AsyncGenerator<ItemRecord> {
    let after = -1
    const pacer = new Pacer()
    while (true) {
      await pacer.pace()
      const page = await this.repository.items(taskId, after, 500)
      yield* page
      if (page.length < 500) return
      after = page[page.length - 1]!.seq
    }
  }

  /**
   * Store an upload's bytes as they arrive, in parts of whole lines (so a line never straddles two parts), refusing
   * past `limits.maxFileBytes` and a line longer than `limits.maxLineBytes` (a 400 naming it). Parts only:
   * `recordFile` makes them a file once the rest of the form is checked, and `discardFile` removes them when it is
   * not (or this throws).
   */
  async storeFileParts(body: AsyncIterable<Uint8Array>): Promise<{ id: string; bytes: number }> {
    const id = `file-${randomBase62(24)}`
    const { maxFileBytes, maxLineBytes } = this.limits
    const lines = new LineMeter(maxLineBytes)
    // A body already buffered is read without I/O in between: paced, so a fast client's 200 MB is not one long turn.
    const pacer = new Pacer()
    // Bytes are gathered and cut at their last newline, then decoded once per part: a newline byte is never inside
    // a UTF-8 sequence, so a part's text is whole, and no per-chunk strings are made for the collector to catch up on.
    // Each chunk is searched for a newline once, as it comes (a long line is not searched again and again).
    let held: Uint8Array[] = []
    let heldBytes = 0
    /** Where the last newline among the held chunks is: the chunk's index and the offset just after it. */
    let lastNewline: { index: number; end: number } | undefined
    let bytes = 0
    let seq = 0
    const write = async (chunks: Uint8Array[]) => {
      const part = Buffer.concat(chunks)
      if (part.byteLength > 0) await this.repository.insertFilePart(id, seq++, part.toString('utf8'))
    }
    try {
      for await (const chunk of body) {
        bytes += chunk.byteLength
        if (bytes > maxFileBytes) throw new FileTooLargeError(`The file is larger than the ${describeBytes(maxFileBytes)} limit.`)
        lines.take(chunk)
        await pacer.pace()
        const newline = chunk.lastIndexOf(10)
        if (newline !== -1) lastNewline = { index: held.length, end: newline + 1 }
        held.push(chunk)
        heldBytes += chunk.byteLength
        if (heldBytes < partBytes || !lastNewline) continue
        const { index, end } = lastNewline
        const last = held[index]!
        await write([...held.slice(0, index), last.subarray(0, end)])
        held = [last.subarray(end), ...held.slice(index + 1)]
        heldBytes = held.reduce((sum, rest) => sum + rest.byteLength, 0)
        lastNewline = undefined
      }
      await write(held)
    } catch (error) {
      await this.discardFile(id)
      throw error
    }
    return { id, bytes }
  }

  /**
   * The record that makes stored parts a file (written last: a half-written file is never listed), if the account's
   * files and bytes stay within their quotas, counted as it is written (a 400 otherwise; the caller discards the parts).
   */
  async recordFile(
    accountId: number,
    stored: { id: string; bytes: number },
    filename: string,
    purpose: FilePurpose,
    expiresAt: number | null,
  ): Promise<FileRecord> {
    const file: FileRecord = {
      id: stored.id,
      accountId,
      purpose,
      filename,
      bytes: stored.bytes,
      taskId: null,
      createdAt: this.createdNow(),
      expiresAt,
    }
    storedOrRefused(await this.repository.insertFile(file, this.limits), this.limits)
    return file
  }

  /** Remove the parts of an upload that was refused. */
  async discardFile(id: string): Promise<void> {
    await this.repository.deleteFile(id)
  }

  /** A file written by the gateway (a batch's output), from its lines. */
  async writeFile(
    id: string,
    accountId: number,
    filename: string,
    taskId: string,
    lines: AsyncIterable<string>,
  ): Promise<FileRecord | undefined> {
    let part = ''
    let seq = 0
    let bytes = 0
    for await (const line of lines) {
      part += line + '\n'
      if (part.length >= partBytes) {
        bytes += Buffer.byteLength(part)
        await this.repository.insertFilePart(id, seq++, part)
        part = ''
      }
    }
    if (part) {
      bytes += Buffer.byteLength(part)
      await this.repository.insertFilePart(id, seq++, part)
    }
    if (seq === 0) return undefined
    const file: FileRecord = { id, accountId, purpose: 'batch_output', filename, bytes, taskId, createdAt: this.clock(), expiresAt: null }
    await this.repository.insertFile(file)
    return file
  }

  async findFile(accountId: number, id: string): Promise<FileRecord | undefined> {
    const file = await this.repository.findFile(id)
    return file?.accountId === accountId ? file : undefined
  }

  /**
   * A file's text as stored, a part (about 1 MB) at a time: a read of one is a short synchronous call on SQLite, and a
   * reader that stops early (a batch refused at its 50,001st line) reads no more than it needs.
   */
  async *fileText(fileId: string): AsyncGenerator<string> {
    for (let from = 0; ; ) {
      const [part] = await this.repository.fileParts(fileId, from, 1)
      if (!part) return
      yield part.data
      from = part.seq + 1
    }
  }

  /** A file's lines (1-based numbers), split across parts without holding the file whole; a 400 for a line too long. */
  fileLines(fileId: string): AsyncGenerator<{ number: number; text: string }> {
    return splitLines(this.fileText(fileId), this.limits.maxLineBytes)
  }
}
