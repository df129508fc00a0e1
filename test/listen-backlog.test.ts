import { afterAll, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { deepenListenBacklog } from '../src/edge/listen-backlog.ts'
import { ensureBinary } from './support/binary.ts'
import { makeWorkspace, runCli, startServe } from './support/cli.ts'

/**
 * Bun.serve listens with a backlog of 512 whatever it is asked, so a burst of more new connections than its event
 * loop accepts at once (thousands of streaming clients starting together) overflows the accept queue and the kernel
 * drops SYNs, which clients retry a second later. The gateway deepens its listening socket's queue to the kernel's
 * most (net.core.somaxconn) — the compiled binary too, which reaches libc through FFI — and says so at start.
 */
const somaxconn = Number(readFileSync('/proc/sys/net/core/somaxconn', 'utf8').trim())
const stops: (() => void)[] = []
afterAll(() => {
  for (const stop of stops) stop()
})

/** The accept queue's size the kernel reports for the socket listening on `port` (`ss`: Send-Q of a LISTEN line). */
function listenQueue(port: number): number {
  const lines = Bun.spawnSync(['ss', '-ltnH', `sport = :${port}`])
    .stdout.toString()
    .trim()
    .split('\n')
  return Number(lines[0]!.trim().split(/\s+/)[2])
}

test("a listening socket's accept queue is deepened from Bun's 512 to the kernel's most", () => {
  const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('ok') })
  stops.push(() => server.stop(true))
  expect(listenQueue(server.port!)).toBe(512)
  expect(deepenListenBacklog(server.port!)).toBe(somaxconn)
  expect(listenQueue(server.port!)).toBe(somaxconn)
})

test('the compiled binary serves with the deeper queue and says so at start', async () => {
  const binary = ensureBinary()
  const { dir, config } = makeWorkspace()
  expect(runCli([binary], ['migrate', '--config', config]).code).toBe(0)
  const server = await startServe([binary], config, { cwd: dir })
  stops.push(() => server.process.kill('SIGTERM'))
  expect(server.output()).toContain(`"listen_backlog":${somaxconn}`)
  expect(listenQueue(Number(new URL(server.url).port))).toBe(somaxconn)
  // It still answers.
  expect((await fetch(`${server.url}/healthz`)).status).toBe(200)
}, 120_000)
