import { Database } from 'bun:sqlite'
import { afterAll, expect, test } from 'bun:test'
import { connect, type Socket } from 'node:net'
import { join } from 'node:path'
import { makeWorkspace, runCli, startServe } from './support/cli.ts'
import { memoryOf } from './support/memory.ts'
import { startHostileUpstream } from './support/hostile-upstream.ts'

/**
 * A client that asks for a stream and never reads it must not make the gateway buffer the upstream: the gateway
 * stops reading the upstream while the client's socket is full, and ends the request at the write deadline (499,
 * billed for what was produced). The gateway runs as its own process so its memory can be measured.
 */
const cli = ['bun', 'src/main.ts']
const upstream = startHostileUpstream({ kind: 'endless-stream' })
afterAll(() => upstream.stop())

/** A raw client that sends one request and never reads a byte of the answer. */
function sendAndNeverRead(url: string, path: string, headers: Record<string, string>, body: unknown): Socket {
  const { hostname, port } = new URL(url)
  const text = JSON.stringify(body)
  const socket = connect(Number(port), hostname, () => {
    socket.pause()
    const head = Object.entries({
      host: `${hostname}:${port}`,
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(text)),
      ...headers,
    })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('')
    socket.write(`POST ${path} HTTP/1.1\r\n${head}\r\n${text}`)
  })
  socket.on('error', () => {})
  return socket
}

for (const mode of ['passthrough', 'translated'] as const) {
  test(`${mode}: a client that never reads a stream holds back the upstream and is ended at the write deadline, billed`, async () => {
    const { dir, config } = makeWorkspace(`limits: { write_idle_ms: 2000 }
providers:
  - { name: hostile, type: openai, base_url: ${upstream.url}/v1, api_key: sk-up }
models:
  - { id: endless, provider: hostile, price: { input: 1, output: 2 } }
`)
    const run = (...args: string[]) => runCli(cli, [...args, '--config', config])
    expect(run('migrate').code).toBe(0) // only serve and migrate create a database
    expect(run('account', 'create', 'acme', '--balance', '100').code).toBe(0)
    const secret = run('key', 'create', '--account', 'acme', '--json').json().key as string
    const server = await startServe(cli, config)
    const pid = server.process.pid
    const closedBefore = upstream.closed
    try {
      const startRss = memoryOf(pid).rss
      const writtenBefore = upstream.written
      const socket =
        mode === 'passthrough'
          ? sendAndNeverRead(
              server.url,
              '/v1/chat/completions',
              { authorization: `Bearer ${secret}` },
              { model: 'endless', stream: true, messages: [{ role: 'user', content: 'hi' }] },
            )
          : sendAndNeverRead(
              server.url,
              '/v1/messages',
              { 'x-api-key': secret, 'anthropic-version': '2023-06-01' },
              { model: 'endless', max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'hi' }] },
            )
      let peak = startRss
      const samples: number[] = []
      const deadline = performance.now() + 6000
      while (performance.now() < deadline) {
        await Bun.sleep(100)
        peak = Math.max(peak, memoryOf(pid).rss)
        samples.push(upstream.written - writtenBefore)
        if (upstream.closed > closedBefore) break
      }
      const read = upstream.written - writtenBefore
      console.log(
        `${mode}: gateway RSS ${startRss.toFixed(0)} MB at start, peak ${peak.toFixed(0)} MB; upstream bytes the gateway read: ${(read / 1e6).toFixed(1)} MB`,
      )
      // Without backpressure the gateway reads ~90 MB/s from the upstream and its memory grows with it.
      expect(read).toBeLessThan(32 * 1024 * 1024)
      expect(peak - startRss).toBeLessThan(100)
      // The write deadline (2 s) ended the request: the upstream connection was closed.
      expect(upstream.closed).toBeGreaterThan(closedBefore)
      socket.destroy()
      await Bun.sleep(300)
    } finally {
      server.process.kill('SIGTERM')
      await server.process.exited
    }
    const database = new Database(join(dir, 'tollgate.db'), { readonly: true })
    try {
      const rows = database.query('SELECT status, error_type, output_tokens, cost FROM usage_records').all() as {
        status: number
        error_type: string
        output_tokens: number
        cost: number
      }[]
      expect(rows).toHaveLength(1)
      expect(rows[0]).toMatchObject({ status: 499, error_type: 'client_closed' })
      expect(rows[0]!.output_tokens).toBeGreaterThan(0)
      expect(rows[0]!.cost).toBeGreaterThan(0)
    } finally {
      database.close()
    }
  }, 30_000)
}
