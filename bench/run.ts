/**
 * Load benchmark: a loopback upstream, a raw Bun passthrough proxy and Tollgate, each in its own process,
 * loaded in turn with the same requests by wrk (Debian's `wrk`) — or autocannon when wrk is absent.
 * Prints requests/s and p50/p99 latency for each, and the ratio Tollgate / passthrough.
 *
 *   bun bench/run.ts [--seconds 10] [--connections 50] [--stream]
 *
 * Loopback only; every run stops by itself. Not part of CI (numbers depend on the machine).
 */
import { parseArgs } from 'node:util'
import { measure, type Measurement } from './measure.ts'

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '10' }, connections: { type: 'string', default: '50' }, stream: { type: 'boolean', default: false } } })
const seconds = Number(values.seconds)
const connections = Number(values.connections)

async function spawnServer(script: string, env: Record<string, string> = {}) {
  const child = Bun.spawn(['bun', script], { cwd: import.meta.dir, env: { ...process.env, ...env }, stdout: 'pipe', stderr: 'inherit' })
  const reader = child.stdout.getReader()
  const { value } = await reader.read()
  reader.releaseLock()
  return { child, info: JSON.parse(new TextDecoder().decode(value).split('\n')[0]!) as { url: string; key?: string } }
}

const upstream = await spawnServer('upstream.ts')
const passthrough = await spawnServer('passthrough.ts', { UPSTREAM_URL: upstream.info.url })
const tollgate = await spawnServer('tollgate.ts', { UPSTREAM_URL: upstream.info.url })
const body = JSON.stringify({ model: 'bench-model', stream: values.stream, messages: [{ role: 'user', content: 'How fast is this gateway?' }] })

const results: Record<string, Measurement> = {}
try {
  for (const [name, target] of [['passthrough', passthrough], ['tollgate', tollgate]] as const) {
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${target.info.key ?? 'none'}` }
    await measure(`${target.info.url}/v1/chat/completions`, body, headers, 2, connections) // warm-up
    results[name] = await measure(`${target.info.url}/v1/chat/completions`, body, headers, seconds, connections)
  }
} finally {
  tollgate.child.kill('SIGTERM')
  await tollgate.child.exited
  passthrough.child.kill()
  upstream.child.kill()
}

const row = (name: string, result: Measurement) =>
  `${name.padEnd(12)} ${result.rps.toFixed(0).padStart(8)} req/s   p50 ${result.p50.toFixed(2).padStart(7)} ms   p99 ${result.p99.toFixed(2).padStart(7)} ms   errors ${result.errors}`
console.log(`\n${values.stream ? 'streaming' : 'non-streaming'} chat completions, ${connections} connections, ${seconds} s each, tool: ${results.tollgate!.tool}`)
console.log(row('passthrough', results.passthrough!))
console.log(row('tollgate', results.tollgate!))
console.log(`ratio tollgate/passthrough: ${(results.tollgate!.rps / results.passthrough!.rps).toFixed(2)} (target ≥ 0.80)`)
