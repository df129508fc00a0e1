import { expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { join } from 'node:path'
import { makeWorkspace, runCli, startServe } from './support/cli.ts'

const cli = ['bun', 'src/main.ts']

/** Holds and reservations as the data file has them, read beside the running servers (WAL allows it). */
function moneyState(path: string) {
  const database = new Database(path, { readonly: true })
  try {
    const holds = database.query<{ id: string; amount: number }, []>('SELECT id, amount FROM holds ORDER BY id').all()
    const account = database
      .query<{ balance: number; reserved: number }, []>("SELECT balance, reserved FROM accounts WHERE name = 'acme'")
      .get()!
    return { holds, ...account }
  } finally {
    database.close()
  }
}

/** A streamed answer that has begun on `url` (its hold is placed); `rest` reads it to the end. */
async function streaming(url: string, secret: string) {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'slow',
      stream: true,
      messages: [{ role: 'user', content: 'one two three four five six seven eight nine ten' }],
    }),
  })
  const reader = response.body!.getReader()
  await reader.read()
  return {
    async rest() {
      let text = ''
      for (let next = await reader.read(); !next.done; next = await reader.read()) text += new TextDecoder().decode(next.value)
      return text
    },
  }
}

/** `serve` on the config, expected to give up: its exit code and stderr (or null when it is still running after 10 s). */
async function refusedServe(config: string): Promise<{ code: number; stderr: string } | null> {
  const child = Bun.spawn([...cli, 'serve', '--config', config], { stdout: 'pipe', stderr: 'pipe', stdin: 'ignore' })
  const code = await Promise.race([child.exited, Bun.sleep(10_000).then(() => null)])
  if (code === null) {
    child.kill('SIGKILL')
    return null
  }
  return { code, stderr: await new Response(child.stderr).text() }
}

test('a second serve on the same SQLite file refuses to start, naming the file; after the first dies by SIGKILL the next start releases its holds', async () => {
  const { dir, config } = makeWorkspace(`providers:
  - { name: slow, type: mock, chunk_delay_ms: 80 }
models:
  - { id: slow, provider: slow, price: { input: 1, output: 2 } }
`)
  const databasePath = join(dir, 'tollgate.db')
  const run = (...args: string[]) => runCli(cli, [...args, '--config', config])
  expect(run('migrate').code).toBe(0) // only serve and migrate create a database
  expect(run('account', 'create', 'acme', '--balance', '10').code).toBe(0)
  const secret = run('key', 'create', '--account', 'acme', '--json').json().key as string

  const first = await startServe(cli, config)
  const inFlight = await streaming(first.url, secret)
  const held = moneyState(databasePath)
  expect(held.holds.length).toBe(1)
  expect(held.reserved).toBeGreaterThan(0)

  const second = await refusedServe(config)
  expect(second).not.toBeNull()
  expect(second!.code).not.toBe(0)
  const message = second!.stderr.trim()
  expect(message.split('\n').length).toBe(1)
  expect(message).toContain(databasePath)
  expect(message).toContain('in use by another running "tollgate serve"')
  // The first server's hold is untouched and it goes on serving.
  expect(moneyState(databasePath)).toEqual(held)
  expect(await inFlight.rest()).toContain('data: [DONE]')
  const answer = await fetch(`${first.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'slow', messages: [{ role: 'user', content: 'still there?' }] }),
  })
  expect(answer.status).toBe(200)

  // Killed mid-answer: its hold stays in the file, and so does the lock file — but not the lock.
  await streaming(first.url, secret)
  first.process.kill('SIGKILL')
  await first.process.exited
  expect(moneyState(databasePath).holds.length).toBe(1)

  const next = await startServe(cli, config)
  const after = moneyState(databasePath)
  expect(after.holds).toEqual([])
  expect(after.reserved).toBe(0)
  next.process.kill('SIGTERM')
  expect(await next.process.exited).toBe(0)
}, 60_000)
