/**
 * Instructions per request, counted by valgrind's callgrind for a fixed number of requests: a measure that, unlike
 * CPU time or req/s, does not drift with what else a shared machine is doing. Each checkout's gateway runs under
 * callgrind with counting off; after a warm-up (JIT, connection pools, the first leases) counting is switched on for
 * exactly `--requests` requests, in turns (this, the others, this again…), and the total is divided by the requests.
 *
 *   bun bench/count-instructions.ts [--requests 3000] [--warmup 3000] [--rounds 2] [--stream] [--operation embeddings] ../before [...]
 *
 * Slow (valgrind runs the gateway some 50 times slower), loopback only, and it stops by itself. Not part of CI.
 */
import { parseArgs } from 'node:util'
import { resolve } from 'node:path'
import { rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { workload } from './workloads.ts'

const { values, positionals } = parseArgs({
  options: {
    requests: { type: 'string', default: '3000' }, warmup: { type: 'string', default: '3000' }, rounds: { type: 'string', default: '2' },
    stream: { type: 'boolean', default: false }, operation: { type: 'string', default: 'chat' }, connections: { type: 'string', default: '8' },
  },
  allowPositionals: true,
})
const here = resolve(import.meta.dir, '..')
const checkouts = [here, ...positionals.map((path) => resolve(path))]
const { path, body } = workload(values.operation, values.stream)

async function firstLine(stream: ReadableStream<Uint8Array>): Promise<{ url: string; key?: string }> {
  const reader = stream.getReader()
  let text = ''
  while (!text.includes('\n')) text += new TextDecoder().decode((await reader.read()).value)
  reader.releaseLock()
  return JSON.parse(text.split('\n')[0]!)
}

/** Exactly `count` requests, `connections` at a time; each answer read to its end. */
async function send(url: string, key: string, count: number): Promise<void> {
  let next = 0
  const worker = async () => {
    while (next++ < count) {
      const response = await fetch(url + path, { method: 'POST', body, headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` } })
      if (response.status !== 200) throw new Error(`status ${response.status}: ${await response.text()}`)
      await response.arrayBuffer()
    }
  }
  await Promise.all(Array.from({ length: Number(values.connections) }, worker))
}

const control = (pid: number, ...args: string[]) => Bun.spawnSync(['callgrind_control', ...args, String(pid)], { stdout: 'ignore', stderr: 'ignore' })

const upstream = Bun.spawn(['bun', 'upstream.ts'], { cwd: `${here}/bench`, stdout: 'pipe', stderr: 'ignore' })
const upstreamUrl = (await firstLine(upstream.stdout)).url
const gateways = await Promise.all(checkouts.map(async (checkout, index) => {
  const out = `${tmpdir()}/tollgate-callgrind-${process.pid}-${index}`
  const child = Bun.spawn(['valgrind', '--tool=callgrind', '--smc-check=all-non-file', '--collect-atstart=no', `--callgrind-out-file=${out}`, 'bun', 'tollgate.ts'], {
    cwd: `${checkout}/bench`, env: { ...process.env, UPSTREAM_URL: upstreamUrl }, stdout: 'pipe', stderr: 'ignore',
  })
  const info = await firstLine(child.stdout)
  return { checkout, child, out, info: info as { url: string; key: string }, counts: [] as number[] }
}))

try {
  for (const gateway of gateways) await send(gateway.info.url, gateway.info.key, Number(values.warmup))
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const gateway of gateways) {
      control(gateway.child.pid, '-z') // zero what was counted so far
      control(gateway.child.pid, '-i', 'on')
      await send(gateway.info.url, gateway.info.key, Number(values.requests))
      await Bun.sleep(300) // the usage batch and its commit, which every request pays for
      control(gateway.child.pid, '-i', 'off')
      control(gateway.child.pid, '-d')
      const dumps = Bun.spawnSync(['sh', '-c', `cat ${gateway.out}*`]).stdout.toString()
      const totals = [...dumps.matchAll(/^(?:summary|totals): (\d+)/gm)].map((match) => Number(match[1]))
      gateway.counts.push(totals.at(-1)! / Number(values.requests))
      Bun.spawnSync(['sh', '-c', `rm -f ${gateway.out}.*`])
    }
  }
  console.log(`${values.requests} ${workload(values.operation, values.stream).label} per round, instructions per request (callgrind):`)
  for (const gateway of gateways) console.log(`${gateway.checkout.padEnd(40)} ${gateway.counts.map((count) => count.toFixed(0).padStart(9)).join(' ')}`)
} finally {
  for (const gateway of gateways) {
    gateway.child.kill('SIGKILL')
    rmSync(gateway.out, { force: true })
  }
  upstream.kill()
}
