// The floor for a gateway that bills by the rules Tollgate keeps: the trivial proxy (passthrough.ts) plus only the
// work those rules cannot do without, written as plainly and cheaply as Bun allows, with nothing else — no config,
// no routing table, no retries, no deadlines, no metrics, no logs, no errors in a protocol's shape. It answers one
// key and one model of OpenAI Chat Completions, whole or streamed, and for each request:
//   - finds its key by the SHA-256 of the bearer secret (keys are stored hashed) and checks the model is permitted;
//   - reads and parses the body, and for a stream asks the upstream for its usage chunk (body written again);
//   - holds an estimate against the balance in memory (one server per SQLite file: no hold row);
//   - reads the answer in JS to find its usage (a whole answer parsed; a stream's bytes searched, the usage event
//     parsed and cut out, since the client did not ask for it) and writes each read on as it comes;
//   - commits the bill (a usage row into an unindexed table and the account's debit, one transaction, WAL with
//     synchronous = NORMAL as Tollgate's) before the answer ends, so that no answer completes unbilled; the bills of
//     one turn of the event loop share a commit (group commit, as Tollgate's ledger writer does).
// bench/compare-rate.ts --floor and bench/compare.ts --floor run it beside the trivial proxy and Tollgate: what the
// floor costs beyond the trivial proxy is the rules' price on this runtime; what Tollgate costs beyond the floor is
// Tollgate's own. Not a product: nothing here is checked beyond what a bench needs.
import { Database } from 'bun:sqlite'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { serveProxy } from './trivial-proxy.ts'

const upstream = process.env.UPSTREAM_URL!
const secret = 'tg-floor-secret'
const keys = new Map([[Bun.SHA256.hash(secret, 'hex') as string, { id: 1, accountId: 1, models: new Set(['bench-model']) }]])
const account = { balance: 1e15, held: 0 }

const database = new Database(join(mkdtempSync(join(tmpdir(), 'tollgate-floor-')), 'floor.db'))
database.exec('PRAGMA journal_mode = WAL')
database.exec('PRAGMA synchronous = NORMAL')
database.exec('CREATE TABLE accounts (id INTEGER PRIMARY KEY, balance INTEGER NOT NULL)')
database.exec(
  'CREATE TABLE usage (id INTEGER PRIMARY KEY, request_id TEXT, account_id INTEGER, key_id INTEGER, model TEXT, input INTEGER, output INTEGER, cost INTEGER, created_at INTEGER)',
)
database.exec(`INSERT INTO accounts VALUES (1, ${account.balance})`)
const insertUsage = database.prepare(
  'INSERT INTO usage (request_id, account_id, key_id, model, input, output, cost, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
)
const debit = database.prepare('UPDATE accounts SET balance = balance - ? WHERE id = ?')
interface Bill {
  requestId: string
  key: { id: number; accountId: number }
  model: string
  usage: Usage
  hold: number
}
const commitBills = database.transaction((bills: Bill[]) => {
  let cost = 0
  for (const { requestId, key, model, usage } of bills) {
    const billed = usage.prompt_tokens * 3 + usage.completion_tokens * 15
    insertUsage.run(requestId, key.accountId, key.id, model, usage.prompt_tokens, usage.completion_tokens, billed, Date.now())
    debit.run(billed, key.accountId)
    cost += billed
  }
  return cost
})
// Group commit as Tollgate's ledger writer does it: the bills settled in one turn of the event loop share one
// transaction, committed as soon as the loop has handled what is ready, and each answer waits for it.
let pending: Bill[] = []
let committed: PromiseWithResolvers<void> | undefined
const commitPending = () => {
  const bills = pending
  const waiting = committed!
  pending = []
  committed = undefined
  account.balance -= commitBills.immediate(bills)
  for (const bill of bills) account.held -= bill.hold
  waiting.resolve()
}
/** Queues the bill; resolves once it is committed (the balance the next request sees is then the debited one). */
const settle = (requestId: string, key: { id: number; accountId: number }, model: string, usage: Usage, hold: number) => {
  pending.push({ requestId, key, model, usage, hold })
  if (!committed) {
    committed = Promise.withResolvers<void>()
    setImmediate(commitPending)
  }
  return committed.promise
}

interface Usage {
  prompt_tokens: number
  completion_tokens: number
}
const refuse = (status: number) => new Response(null, { status })
const upstreamHeaders = { 'content-type': 'application/json', authorization: 'Bearer upstream-secret' }
const usageMark = Buffer.from('"usage":{')
const hold = 10_000
let requests = 0

serveProxy(async (request) => {
  const authorization = request.headers.get('authorization')
  const key = authorization ? keys.get(Bun.SHA256.hash(authorization.slice(7), 'hex') as string) : undefined
  if (!key) return refuse(401)
  const text = await request.text()
  const body = JSON.parse(text) as { model: string; stream?: boolean; stream_options?: unknown }
  if (!key.models.has(body.model)) return refuse(403)
  if (account.balance - account.held < hold) return refuse(403)
  account.held += hold
  const requestId = `req_${++requests}`
  if (body.stream) body.stream_options = { include_usage: true }
  const url = request.url
  let response: Response
  try {
    response = await fetch(upstream + url.slice(url.indexOf('/', 8)), {
      method: 'POST',
      headers: upstreamHeaders,
      body: body.stream ? JSON.stringify(body) : text,
    })
  } catch {
    account.held -= hold
    return refuse(502)
  }
  if (!body.stream) {
    const answer = await response.text()
    await settle(requestId, key, body.model, (JSON.parse(answer) as { usage: Usage }).usage, hold)
    return new Response(answer, { headers: { 'content-type': 'application/json' } })
  }
  const reader = response.body!.getReader()
  const source = {
    type: 'direct',
    async pull(controller: ReadableStreamDirectController) {
      let usage: Usage | undefined
      for (let next = await reader.read(); !next.done; next = await reader.read()) {
        const bytes = Buffer.from(next.value.buffer, next.value.byteOffset, next.value.byteLength)
        const mark = bytes.indexOf(usageMark)
        if (mark < 0) {
          controller.write(bytes)
          controller.flush()
          continue
        }
        const start = bytes.lastIndexOf('data: ', mark)
        const end = bytes.indexOf('\n\n', mark) + 2
        usage = (JSON.parse(bytes.toString('utf8', start + 6, end - 2)) as { usage: Usage }).usage
        controller.write(bytes.subarray(0, start))
        controller.write(bytes.subarray(end))
        controller.flush()
      }
      if (usage) await settle(requestId, key, body.model, usage, hold)
      else account.held -= hold
      controller.close()
    },
  }
  return new Response(new ReadableStream(source as unknown as UnderlyingDefaultSource<Uint8Array>), {
    headers: { 'content-type': 'text/event-stream' },
  })
}, secret)
