/**
 * What one bill committed alone costs on SQLite — the case of requests arriving one by one (bench/capacity.ts latency,
 * 400/s), where each answer waits for a transaction of its own: the main thread's CPU per bill, and the pages of WAL
 * per bill and per reservation. A serving store (the WAL checkpointed from its own thread, as in `serve`), four
 * long-lived leases under one key, each bill `ledger.write` of one settlement.
 *
 *   bun bench/bill-commit.ts [--bills 10000] [--batch 1] [--gap-ms 0]
 *
 * CPU is the main thread's (/proc, 10 ms ticks, so use ≥ 10,000 bills). Pages are the WAL's frames added while a
 * reader holds a snapshot (the WAL cannot restart meanwhile), in a second store. Run it in two checkouts to compare;
 * in a tight loop the caches stay warm, so a server between requests pays more. Not part of CI.
 */
import { Database } from 'bun:sqlite'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { openSqliteStore } from '../src/db/sqlite/store.ts'
import type { LedgerWrite } from '../src/domain/records.ts'
import type { LedgerRepository } from '../src/domain/repositories.ts'
import { bill as plainBill } from '../test/support/usage-records.ts'

const { values } = parseArgs({
  options: {
    bills: { type: 'string', default: '10000' },
    batch: { type: 'string', default: '1' },
    'gap-ms': { type: 'string', default: '0' },
  },
})
const bills = Number(values.bills)
// --batch N: N bills a commit, as a saturated gateway's group commits take them (~20 a commit at 50 connections).
const batchSize = Number(values.batch)
const leases = 4
// --gap-ms N: N ms of idle between bills, as requests arriving one by one leave a server (400/s: 2.5 ms apart). The
// caches go cold meanwhile, which a tight loop never sees; the idle wait's own wake-up is counted alike in every run.
const gapMs = Number(values['gap-ms'])

async function store(path: string) {
  const setup = openSqliteStore(path)
  await setup.migrate()
  await setup.close()
  const raw = new Database(path)
  raw.run(`INSERT INTO accounts (id, name, balance, reserved, created_at) VALUES (1, 'bench', 1000000000000000, 0, 0)`)
  raw.run(`INSERT INTO api_keys (id, account_id, prefix, hash, created_at, updated_at) VALUES ('key', 1, 'p', 'h', 0, 0)`)
  raw.close()
  return openSqliteStore(path, { serving: true })
}

const bill = (index: number): LedgerWrite[] => Array.from({ length: batchSize }, (_, offset) => settlement(index * batchSize + offset))
// The tests' plain bill with the values this bench has always measured, so its rows stay the size earlier rounds had.
const settlement = (index: number): LedgerWrite => ({
  kind: 'settle',
  leaseId: `lease${index % leases}`,
  usage: {
    ...plainBill(1, 'key', 100),
    requestId: `req_${index}_${crypto.randomUUID()}`,
    model: index % 3 ? 'bench-model' : 'other',
    provider: 'up',
    upstreamModel: 'bench-upstream',
    inputTokens: 10,
    outputTokens: 20,
    latencyMs: 3,
  },
})
const reservation = (leaseId: string) => ({ leaseId, accountId: 1, keyId: 'key', need: 1, want: 1e12, at: Date.now() })
const mainThreadTicks = () => {
  const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return Number(fields[11]) + Number(fields[12]) // utime + stime, in 10 ms ticks
}

/**
 * One bill written, then a turn of the event loop, as a server's requests come: work the ledger schedules after its
 * commits (moving the usage inbox into the indexed log, db/sqlite/usage-inbox.ts) runs and is counted with the bills.
 */
async function writeAlone(ledger: LedgerRepository, batch: LedgerWrite[], took?: number[]): Promise<void> {
  const start = performance.now()
  await ledger.write(batch)
  took?.push((performance.now() - start) * 1000)
  await new Promise((resolve) => (gapMs > 0 ? setTimeout(resolve, gapMs) : setImmediate(resolve)))
}

const directory = mkdtempSync(join(tmpdir(), 'tollgate-bill-commit-'))
const timed = await store(join(directory, 'cpu.db'))
for (let lease = 0; lease < leases; lease++) await timed.ledger.reserve(reservation(`lease${lease}`))
for (let index = 0; index < 1000; index++) await writeAlone(timed.ledger, bill(index)) // warm-up
const batches = Array.from({ length: bills / batchSize }, (_, index) => bill(index))
const ticks = mainThreadTicks()
// Each write's own time on the clock: the commit is synchronous, so on an idle machine this is its CPU, without the
// idle wait's wake-up that the thread's ticks count with it under --gap-ms.
const took: number[] = []
for (const batch of batches) await writeAlone(timed.ledger, batch, took)
took.sort((a, b) => a - b)
const quantile = (q: number) => took[Math.floor(q * (took.length - 1))]!.toFixed(1)
const cpuUs = ((mainThreadTicks() - ticks) * 10_000) / bills
await timed.close()

const counted = join(directory, 'pages.db')
const paged = await store(counted)
const reader = new Database(counted)
reader.run('BEGIN')
reader.query('SELECT 1 FROM accounts').get()
// Frames in the WAL (its `log` count, from a third connection), rather than the file's size, which does not grow
// while a restarted WAL is written over.
const counter = new Database(counted)
const wal = () => counter.query('PRAGMA wal_checkpoint(PASSIVE)').values()[0]![1] as number
let before = wal()
// Leases of 1e9 each: a thousand of 1e12 would reserve the whole balance and leave the bills' leases with no hold.
for (let lease = 0; lease < 1000; lease++) await paged.ledger.reserve({ ...reservation(`new${lease}`), want: 1e9 })
const reservePages = (wal() - before) / 1000
for (let lease = 0; lease < leases; lease++) await paged.ledger.reserve(reservation(`lease${lease}`))
before = wal()
for (let index = 0; index < 2000 / batchSize; index++) await writeAlone(paged.ledger, bill(index))
const billPages = (wal() - before) / 2000
reader.run('COMMIT')
reader.close()
counter.close()
await paged.close()
console.log(
  `${batchSize === 1 ? 'bill committed alone' : `bills committed ${batchSize} at a time`}: main thread ${cpuUs.toFixed(1)} µs a bill (${bills} bills), a write's clock time p50 ${quantile(0.5)} / p90 ${quantile(0.9)} µs, ${billPages.toFixed(2)} WAL pages a bill; a new reservation: ${reservePages.toFixed(2)} WAL pages`,
)
