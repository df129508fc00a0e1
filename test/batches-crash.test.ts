import { Database } from 'bun:sqlite'
import { expect, test } from 'bun:test'
import { join } from 'node:path'
import OpenAI, { toFile } from 'openai'
import { jsonl, pollUntil } from './support/batches.ts'
import { makeWorkspace, runCli, startServe } from './support/cli.ts'
import { chatCompletion } from './support/openai-upstream.ts'
import { jsonReply, startUpstream } from './support/upstream.ts'

const cli = ['bun', 'src/main.ts']

/**
 * kill -9 in the middle of a batch of slow items, then a restart: the batch completes, every item appears once in the
 * results, no item is billed twice, and the ledger balances (what the account lost is what its items cost).
 */
test('a batch survives kill -9: it completes after a restart, each item once, billed once', async () => {
  const upstream = startUpstream(async (request) => {
    await Bun.sleep(300)
    return jsonReply(chatCompletion(request))
  })
  const { dir, config } = makeWorkspace(`providers:
  - { name: slow, type: openai, base_url: "${upstream.url}/v1" }
models:
  - { id: slow-1, provider: slow, upstream_model: u, price: { input: 1, output: 2, batch: { input: 0.5, output: 1 } }, max_output_tokens: 64 }
tasks: { concurrency: 3 }
`)
  const run = (...args: string[]) => runCli(cli, [...args, '--config', config])
  expect(run('migrate').code).toBe(0) // only serve and migrate create a database
  expect(run('account', 'create', 'acme', '--balance', '10').code).toBe(0)
  const secret = run('key', 'create', '--account', 'acme', '--json').json().key as string
  let server = await startServe(cli, config)
  const client = (url: string) => new OpenAI({ baseURL: `${url}/v1`, apiKey: secret, maxRetries: 0 })
  const lines = Array.from({ length: 15 }, (_, index) => ({
    custom_id: `item-${index}`,
    method: 'POST',
    url: '/v1/chat/completions',
    body: { model: 'slow-1', messages: [{ role: 'user', content: `hello ${index}` }] },
  }))
  const file = await client(server.url).files.create({ file: await toFile(Buffer.from(jsonl(lines)), 'in.jsonl'), purpose: 'batch' })
  const batch = await client(server.url).batches.create({
    input_file_id: file.id,
    endpoint: '/v1/chat/completions',
    completion_window: '24h',
  })
  // Some items done, others running at the upstream: then the process dies without any shutdown.
  await pollUntil(
    () => client(server.url).batches.retrieve(batch.id),
    (value) => value.request_counts!.completed >= 4,
  )
  await Bun.sleep(150)
  server.process.kill('SIGKILL')
  await server.process.exited
  const seenBefore = upstream.requests.length

  server = await startServe(cli, config)
  try {
    const done = await pollUntil(
      () => client(server.url).batches.retrieve(batch.id),
      (value) => value.status === 'completed',
      20_000,
    )
    expect(done.request_counts).toEqual({ total: 15, completed: 15, failed: 0 })
    const text = await (await client(server.url).files.content(done.output_file_id!)).text()
    const ids = text
      .trim()
      .split('\n')
      .map((row) => JSON.parse(row).custom_id as string)
    expect(ids.sort()).toEqual(lines.map((line) => line.custom_id).sort())
    // Items cut by the crash ran again, the finished ones did not.
    expect(upstream.requests.length).toBeLessThanOrEqual(seenBefore + 15 - 4)
  } finally {
    server.process.kill('SIGTERM')
    await server.process.exited
    await upstream.stop()
  }

  const database = new Database(join(dir, 'tollgate.db'), { readonly: true })
  try {
    const items = database.query('SELECT id, cost FROM task_items WHERE task_id = ?').all(batch.id) as { id: string; cost: number }[]
    expect(items.length).toBe(15)
    let total = 0
    for (const item of items) {
      const rows = database.query('SELECT cost FROM usage_records WHERE request_id = ? AND cost > 0').all(item.id) as { cost: number }[]
      expect(rows.length).toBe(1)
      expect(rows[0]!.cost).toBe(item.cost)
      total += item.cost
    }
    // 11 prompt tokens (3 cached) at 0.5 and 7 out at 1, per million: every item the same.
    expect(items.every((item) => item.cost === 11 * 500 + 7 * 1000)).toBe(true)
    const account = database.query("SELECT balance, reserved FROM accounts WHERE name = 'acme'").get() as {
      balance: number
      reserved: number
    }
    expect(account.reserved).toBe(0)
    expect(10_000_000_000 - account.balance).toBe(total)
    const task = database.query('SELECT spent FROM tasks WHERE id = ?').get(batch.id) as { spent: number }
    expect(task.spent).toBe(total)
  } finally {
    database.close()
  }
}, 60_000)
