import { Database } from 'bun:sqlite'
import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, unlinkSync } from 'node:fs'
import { open, type FileHandle } from 'node:fs/promises'
import { join } from 'node:path'
import { randomBase62 } from '../core/ids.ts'
import { operationBeforeOperations } from '../core/model-kinds.ts'
import type { BillSpool, SpoolStats } from '../domain/bill-spool.ts'
import type { LedgerWrite } from '../domain/records.ts'

/** A segment is sealed (and a new one begun) past this size, so replaying one never reads much at once. */
const segmentBytes = 8 * 1024 * 1024

interface Segment {
  path: string
  /** Bills in it not replayed yet. */
  entries: number
  bytes: number
  oldestAt: number | undefined
  /** Its bills, once read for replay, and how many of them are replayed. */
  bills?: LedgerWrite[]
  replayed: number
  /** A dead process's segment: that process's lock, held by this one until its last segment is replayed. */
  adopted?: { lockPath: string; release(): void; segments: number }
}

/**
 * The ledger's spool as files of one line of JSON per bill: `<dir>/<owner>.<n>.jsonl`, appended and fsynced (the
 * folder too, when a file is made), all 0600 in a 0700 folder. Each process owns its files through `<owner>.lock`,
 * a lock the operating system drops when the process dies however it dies (the SQLite lock serve-lock.ts uses), so a
 * starting process takes over the files of dead ones — never a live one's — and replays them. Several instances on
 * one machine may share the folder.
 */
export class FileSpool implements BillSpool {
  private readonly owner = `spool_${randomBase62(12)}`
  /** Segments waiting to be replayed, oldest first; appends go to `current`. */
  private readonly sealed: Segment[] = []
  private current: { segment: Segment; handle: FileHandle } | undefined
  private sequence = 0
  private releaseLock: (() => void) | undefined
  private chain: Promise<unknown> = Promise.resolve()

  constructor(private readonly dir: string) {
    this.adoptOrphans()
  }

  append(bills: LedgerWrite[]): Promise<void> {
    return this.serialize(async () => {
      const { segment, handle } = this.current ?? (await this.openSegment())
      const text = bills.map((bill) => `${JSON.stringify(bill)}\n`).join('')
      await handle.write(text)
      await handle.sync()
      segment.entries += bills.length
      segment.bytes += Buffer.byteLength(text)
      segment.oldestAt ??= createdAtOf(bills[0]!)
      if (segment.bytes >= segmentBytes) await this.seal()
    })
  }

  next(limit: number): Promise<{ bills: LedgerWrite[]; done(): Promise<void> } | undefined> {
    return this.serialize(async () => {
      if (this.sealed.length === 0 && this.current?.segment.entries) await this.seal()
      const segment = this.sealed[0]
      if (!segment) return undefined
      segment.bills ??= readBills(segment.path)
      const bills = segment.bills.slice(segment.replayed, segment.replayed + limit)
      return {
        bills,
        done: () =>
          this.serialize(async () => {
            segment.replayed += bills.length
            segment.entries = segment.bills!.length - segment.replayed
            segment.oldestAt = segment.bills![segment.replayed] && createdAtOf(segment.bills![segment.replayed]!)
            if (segment.entries <= 0) this.remove(segment)
          }),
      }
    })
  }

  stats(): SpoolStats {
    const segments = this.current ? [...this.sealed, this.current.segment] : this.sealed
    let entries = 0
    let bytes = 0
    let oldestAt: number | undefined
    for (const segment of segments) {
      if (segment.entries <= 0) continue
      entries += segment.entries
      bytes += segment.bytes
      if (segment.oldestAt !== undefined) oldestAt = Math.min(oldestAt ?? segment.oldestAt, segment.oldestAt)
    }
    return { entries, bytes, oldestAt }
  }

  /** The gateway stops: close the file; an empty spool leaves nothing behind, a full one waits for the next start. */
  close(): Promise<void> {
    return this.serialize(async () => {
      await this.current?.handle.close()
      if (this.current && this.current.segment.entries === 0) unlinkQuietly(this.current.segment.path)
      this.current = undefined
      const empty = this.sealed.every((segment) => segment.adopted || segment.entries <= 0)
      this.releaseLock?.()
      if (empty && this.releaseLock) unlinkQuietly(this.lockPath(this.owner))
      for (const segment of this.sealed) segment.adopted?.release()
    })
  }

  private serialize<T>(task: () => Promise<T>): Promise<T> {
    const run = this.chain.then(task)
    this.chain = run.catch(() => {})
    return run
  }

  private lockPath(owner: string): string {
    return join(this.dir, `${owner}.lock`)
  }

  private async openSegment(): Promise<{ segment: Segment; handle: FileHandle }> {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 })
    this.releaseLock ??= tryLock(this.lockPath(this.owner))
    if (!this.releaseLock) throw new Error(`cannot lock ${this.lockPath(this.owner)}`)
    const path = join(this.dir, `${this.owner}.${String(++this.sequence).padStart(6, '0')}.jsonl`)
    const handle = await open(path, 'a', 0o600)
    syncFolder(this.dir) // the new file's name survives a power cut with its contents
    this.current = { segment: { path, entries: 0, bytes: 0, oldestAt: undefined, replayed: 0 }, handle }
    return this.current
  }

  private async seal(): Promise<void> {
    if (!this.current) return
    await this.current.handle.close()
    this.sealed.push(this.current.segment)
    this.current = undefined
  }

  private remove(segment: Segment): void {
    unlinkQuietly(segment.path)
    this.sealed.splice(this.sealed.indexOf(segment), 1)
    if (segment.adopted && --segment.adopted.segments === 0) {
      segment.adopted.release()
      unlinkQuietly(segment.adopted.lockPath)
    }
  }

  /** Take over the segments of processes that died (their lock is free) or left no lock. */
  private adoptOrphans(): void {
    let names: string[]
    try {
      names = readdirSync(this.dir)
    } catch {
      return // no spool yet
    }
    const owners = new Map<string, string[]>()
    for (const name of names) {
      const match = /^(spool_[A-Za-z0-9]+)\.(\d+\.jsonl|lock)$/.exec(name)
      if (!match) continue
      const files = owners.get(match[1]!) ?? []
      if (match[2] !== 'lock') files.push(name)
      owners.set(match[1]!, files)
    }
    for (const [owner, files] of owners) {
      const lockPath = this.lockPath(owner)
      const locked = names.includes(`${owner}.lock`)
      const release = locked ? tryLock(lockPath) : () => {}
      if (!release) continue // alive: its files are its own
      if (files.length === 0) {
        release()
        unlinkQuietly(lockPath)
        continue
      }
      const adopted = { lockPath, release, segments: files.length }
      for (const file of files.sort()) {
        const path = join(this.dir, file)
        const bills = readBills(path)
        this.sealed.push({
          path,
          entries: bills.length,
          bytes: statSync(path).size,
          oldestAt: bills[0] && createdAtOf(bills[0]),
          bills,
          replayed: 0,
          adopted,
        })
      }
    }
  }
}

/**
 * A segment's bills. A last line without its newline is an append a crash cut short — its sync never returned, so
 * no answer waited on it — and is skipped, as is any line that is not JSON.
 */
function readBills(path: string): LedgerWrite[] {
  const lines = readFileSync(path, 'utf8').split('\n')
  lines.pop()
  const bills: LedgerWrite[] = []
  for (const line of lines) {
    let bill: LedgerWrite
    try {
      bill = JSON.parse(line) as LedgerWrite
    } catch {
      continue // a torn line: nothing to replay
    }
    bills.push(upgradeBill(bill))
  }
  return bills
}

/**
 * A bill spooled by a build from before usage rows had an operation (an upgrade started on a spool a crash or an
 * outage left) was a chat request with no units of its own: it is written as one, as the migrations did for old rows,
 * rather than refused by the columns' NOT NULL at every replay.
 */
function upgradeBill(bill: LedgerWrite): LedgerWrite {
  if (bill.kind === 'release' || bill.usage.operation !== undefined) return bill
  return { ...bill, usage: { ...bill.usage, operation: operationBeforeOperations, units: bill.usage.units ?? 0 } }
}

function createdAtOf(bill: LedgerWrite): number | undefined {
  return bill.kind === 'release' ? undefined : bill.usage.createdAt
}

/** An exclusive lock on `path` for as long as this process lives (or until the release), or undefined when taken. */
function tryLock(path: string): (() => void) | undefined {
  try {
    closeSync(openSync(path, 'wx', 0o600))
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  }
  const lock = new Database(path)
  try {
    lock.exec('PRAGMA busy_timeout = 0')
    lock.exec('BEGIN EXCLUSIVE')
  } catch {
    lock.close()
    return undefined
  }
  let held = true
  return () => {
    if (held) lock.close()
    held = false
  }
}

function syncFolder(dir: string): void {
  const descriptor = openSync(dir, 'r')
  try {
    fsyncSync(descriptor)
  } finally {
    closeSync(descriptor)
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path)
  } catch {
    // Gone already (another process took it over first).
  }
}
