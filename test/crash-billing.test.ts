import { Database } from 'bun:sqlite'
import { expect, test } from 'bun:test'
import { join } from 'node:path'
import { makeWorkspace, runCli, startServe } from './support/cli.ts'

/**
 * kill -9 under load: every answer a client received in full must be billed exactly once. An answer's last bytes
 * (the end of a JSON body, a stream's closing event) are sent only once its settlement is committed, so no crash
 * can fall between "the client has it all" and "the ledger has it".
 */
const cli = ['bun', 'src/main.ts']

async function askWhole(url: string, secret: string): Promise<string | undefined> {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'mock-1', messages: [{ role: 'user', content: 'hello there' }] }),
  })
  const text = await response.text()
  JSON.parse(text) // throws unless the body arrived whole
  return response.status === 200 ? response.headers.get('x-request-id')! : undefined
}

async function askStream(url: string, secret: string): Promise<string | undefined> {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'mock-1', stream: true, messages: [{ role: 'user', content: 'hello there' }] }),
  })
  const text = await response.text()
  return response.status === 200 && text.trimEnd().endsWith('data: [DONE]') ? response.headers.get('x-request-id')! : undefined
}

test('kill -9 under load: every answer received in full is billed exactly once', async () => {
  const { dir, config } = makeWorkspace()
  const run = (...args: string[]) => runCli(cli, [...args, '--config', config])
  expect(run('migrate').code).toBe(0) // only serve and migrate create a database
  expect(run('account', 'create', 'acme', '--balance', '100').code).toBe(0)
  const secret = run('key', 'create', '--account', 'acme', '--json').json().key as string
  const server = await startServe(cli, config)

  const received: string[] = []
  let stop = false
  const loops = Array.from({ length: 24 }, async (_, index) => {
    while (!stop) {
      try {
        const id = await (index % 2 ? askStream : askWhole)(server.url, secret)
        if (id) received.push(id)
      } catch {
        return // the gateway is gone: this answer was not received in full
      }
    }
  })
  await Bun.sleep(1500)
  server.process.kill('SIGKILL')
  stop = true
  await Promise.all(loops)
  await server.process.exited
  expect(received.length).toBeGreaterThan(100)

  const database = new Database(join(dir, 'tollgate.db'), { readonly: true })
  try {
    const billed = new Map<string, { rows: number; cost: number }>()
    for (const row of database
      .query('SELECT request_id, count(*) AS rows, sum(cost) AS cost FROM usage_records WHERE status = 200 GROUP BY request_id')
      .all() as { request_id: string; rows: number; cost: number }[]) {
      billed.set(row.request_id, { rows: row.rows, cost: row.cost })
    }
    const unbilled = received.filter((id) => !billed.has(id))
    expect(unbilled).toEqual([])
    for (const id of received) {
      expect(billed.get(id)!.rows).toBe(1)
      expect(billed.get(id)!.cost).toBeGreaterThan(0)
    }
  } finally {
    database.close()
  }
}, 30_000)
