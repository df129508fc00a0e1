import { expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createKey } from '../domain/keys.ts'
import { FileSpool } from './bill-spool.ts'
import { openSqliteStore } from './sqlite/store.ts'

test('a bill spooled before usage rows had an operation is replayed as a chat row with no units', async () => {
  const directory = mkdtempSync(join(tmpdir(), 'tollgate-spool-'))
  const store = openSqliteStore(join(directory, 'tollgate.db'))
  await store.migrate()
  const account = await store.accounts.create('acme', 1000)
  await store.accounts.credit(account.id, 1_000_000, 'seed', 'test', Date.now())
  const { record } = await createKey(store.keys, { accountId: account.id })
  // What a build without `operation` and `units` wrote, left behind by a process that died (no lock of its own).
  const usage = {
    requestId: 'req_spooled_before',
    accountId: account.id,
    keyId: record.id,
    model: 'm',
    provider: 'p',
    upstreamModel: 'u',
    protocol: 'openai-chat',
    inputTokens: 10,
    cachedInputTokens: 0,
    cacheWriteTokens: 0,
    outputTokens: 5,
    reasoningTokens: 0,
    cost: 7_000,
    status: 200,
    errorType: null,
    latencyMs: 3,
    stream: false,
    estimated: false,
    createdAt: Date.now(),
  }
  const spoolDir = join(directory, 'spool')
  mkdirSync(spoolDir, { mode: 0o700 })
  writeFileSync(join(spoolDir, 'spool_before0001.000001.jsonl'), `${JSON.stringify({ kind: 'refusal', usage })}\n`, { mode: 0o600 })

  const spool = new FileSpool(spoolDir)
  const waiting = (await spool.next(10))!
  expect(waiting.bills).toEqual([{ kind: 'refusal', usage: { ...usage, operation: 'chat', units: 0 } }])
  await store.ledger.write(waiting.bills, { replay: true })
  await waiting.done()
  expect(await store.usage.listRequests({}, 10)).toEqual([
    expect.objectContaining({ requestId: 'req_spooled_before', operation: 'chat', units: 0, cost: 7_000 }),
  ])
  await spool.close()
  await store.close()
})
