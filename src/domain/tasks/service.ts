import { randomBase62 } from '../../core/ids.ts'
import type { FilePurpose, FileRecord, ItemRecord, NewItem, TaskKind, TaskRecord } from './records.ts'
import type { TaskPage, TaskRepository } from './repository.ts'
import { maxFileBytes, windowMs } from './rules.ts'

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

/** A file too large, or not text: the protocol says so in its shape. */
export class FileTooLargeError extends Error {}

/**
 * Tasks and files as the endpoints see them: everything is scoped to the calling account, and a task or file of
 * another account is indistinguishable from one that does not exist (undefined, answered as 404).
 */
export class TaskService {
  /** Told when there is new work (the runner wakes up instead of waiting for its next poll). */
  onWork: () => void = () => {}

  constructor(readonly repository: TaskRepository, private readonly clock: () => number = Date.now) {}

  async create(input: NewTask): Promise<TaskRecord> {
    const now = this.clock()
    const id = input.kind === 'gemini' ? randomBase62(24).toLowerCase() : `${idPrefixes[input.kind]}${randomBase62(24)}`
    const task: TaskRecord = {
      id, kind: input.kind, accountId: input.accountId, keyId: input.keyId, status: 'queued', endpoint: input.endpoint,
      model: input.model ?? null, inputFileId: input.inputFileId ?? null, outputFileId: null, errorFileId: null,
      metadata: input.metadata ?? null, displayName: input.displayName ?? null, total: input.items.length,
      succeeded: 0, failed: 0, canceled: 0, expired: 0, spent: 0, createdAt: now, startedAt: null, finishedAt: null,
      cancelRequestedAt: null, expiresAt: now + windowMs,
    }
    const items = input.items.map((item, seq): NewItem => ({ id: `batch_req_${randomBase62(24)}`, seq, customId: item.customId, body: item.body }))
    await this.repository.createTask(task, items)
    this.onWork()
    return task
  }

  async find(accountId: number, id: string): Promise<TaskRecord | undefined> {
    const task = await this.repository.findTask(id)
    return task?.accountId === accountId ? task : undefined
  }

  /** Newest first; `after`/`before` name a task of the same account (an unknown one pages from the start). */
  async list(accountId: number, options: { limit: number; after?: string; before?: string; kind?: TaskKind }): Promise<{ tasks: TaskRecord[]; hasMore: boolean }> {
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

  async cancel(accountId: number, id: string): Promise<TaskRecord | undefined> {
    const task = await this.find(accountId, id)
    if (!task) return undefined
    await this.repository.requestCancel(id, this.clock())
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

  /** Every item of a task, in input order, a page at a time. */
  async *items(taskId: string): AsyncGenerator<ItemRecord> {
    let after = -1
    while (true) {
      const page = await this.repository.items(taskId, after, 500)
      yield* page
      if (page.length < 500) return
      after = page[page.length - 1]!.seq
    }
  }

  /**
   * Store an upload as it arrives, in parts of whole lines (so a line never straddles two parts), refusing past
   * `maxFileBytes`. The record is written last: a failed upload leaves only parts, removed by retention.
   */
  async storeFile(accountId: number, filename: string, purpose: FilePurpose, body: ReadableStream<Uint8Array>, expiresAt: number | null): Promise<FileRecord> {
    const id = `file-${randomBase62(24)}`
    const decoder = new TextDecoder('utf-8', { fatal: false })
    let bytes = 0
    let pending = ''
    let seq = 0
    for await (const chunk of body) {
      bytes += chunk.byteLength
      if (bytes > maxFileBytes) throw new FileTooLargeError(`The file is larger than ${maxFileBytes / 1024 / 1024} MB.`)
      pending += decoder.decode(chunk, { stream: true })
      if (pending.length >= partBytes) {
        const cut = pending.lastIndexOf('\n') + 1
        if (cut > 0) {
          await this.repository.insertFilePart(id, seq++, pending.slice(0, cut))
          pending = pending.slice(cut)
        }
      }
    }
    pending += decoder.decode()
    if (pending) await this.repository.insertFilePart(id, seq++, pending)
    const file: FileRecord = { id, accountId, purpose, filename, bytes, taskId: null, createdAt: this.clock(), expiresAt }
    await this.repository.insertFile(file)
    return file
  }

  /** A file written by the gateway (a batch's output), from its lines. */
  async writeFile(id: string, accountId: number, filename: string, taskId: string, lines: AsyncIterable<string>): Promise<FileRecord | undefined> {
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

  /** A file's text as stored, part by part. */
  async *fileText(fileId: string): AsyncGenerator<string> {
    let from = 0
    while (true) {
      const parts = await this.repository.fileParts(fileId, from, 8)
      for (const part of parts) yield part.data
      if (parts.length < 8) return
      from = parts[parts.length - 1]!.seq + 1
    }
  }

  /** A file's lines (1-based numbers), split across parts without holding the file whole. */
  async *fileLines(fileId: string): AsyncGenerator<{ number: number; text: string }> {
    let rest = ''
    let number = 0
    for await (const part of this.fileText(fileId)) {
      const lines = (rest + part).split('\n')
      rest = lines.pop()!
      for (const line of lines) yield { number: ++number, text: line.replace(/\r$/, '') }
    }
    if (rest) yield { number: ++number, text: rest.replace(/\r$/, '') }
  }
}
