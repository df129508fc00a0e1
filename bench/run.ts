/**
 * Load benchmark: a loopback upstream, a raw Bun passthrough proxy and Tollgate, each in its own process,
 * loaded in turn with the same requests by wrk (Debian's `wrk`) — or autocannon when wrk is absent.
 * Prints requests/s and p50/p99 latency for each, and the ratio Tollgate / passthrough.
 *
 *   bun bench/run.ts [--seconds 10] [--connections 50] [--stream] [--upstream-delay-ms 0] [--rounds 3] [--operation embeddings|rerank|images|speech]
 *
 * --operation embeddings sends OpenAI embeddings requests (bench/workloads.ts) instead of chat completions; rerank a
 * vLLM-shaped rerank of three documents, images a generation of one 256x256 image, speech a speech request (48 KB of
 * audio in six chunks, relayed as it comes).
 * --upstream-delay-ms N makes the upstream wait N ms before answering: 0 measures the CPU-bound case (what each
 * proxy costs), a realistic delay (50) the latency-bound case. Also prints each proxy process's CPU time per request
 * (from /proc/<pid>/stat over the measured run), which is far less noisy than req/s on a shared machine.
 *
 * Loopback only; every run stops by itself. Not part of CI (numbers depend on the machine).
 */
import { parseArgs } from 'node:util'
import { measure, type Measurement } from './measure.ts'
import { workload } from './workloads.ts'

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    stream: { type: 'boolean', default: false },
    'upstream-delay-ms': { type: 'string', default: '0' },
    rounds: { type: 'string', default: '3' },
    operation: { type: 'string', default: 'chat' },
  },
})
const seconds = Number(values.seconds)
const connections = Number(values.connections)
const upstreamDelayMs = Number(values['upstream-delay-ms'])
const rounds = Math.max(1, Number(values.rounds))

async function spawnServer(script: string, env: Record<string, string> = {}) {
  const child = Bun.spawn(['bun', script], { cwd: import.meta.dir, env: { ...process.env, ...env }, stdout: 'pipe', stderr: 'inherit' })
  const reader = child.stdout.getReader()
  const { value } = await reader.read()
  reader.releaseLock()
  return { child, info: JSON.parse(new TextDecoder().decode(value).split('\n')[0]!) as { url: string; key?: string } }
}

const upstream = await spawnServer('upstream.ts', { UPSTREAM_DELAY_MS: String(upstreamDelayMs) })
const passthrough = await spawnServer('passthrough.ts', { UPSTREAM_URL: upstream.info.url })
const tollgate = await spawnServer('tollgate.ts', { UPSTREAM_URL: upstream.info.url })
const { path, body, label } = workload(values.operation, values.stream)

/**
 * User + system CPU time so far, in ms (Linux only; NaN elsewhere): of the whole process, or with `thread` of that
 * thread alone — the main JS thread's id is the process id, and it is the one that limits req/s.
 */
async function cpuMs(pid: number, thread?: number): Promise<number> {
  try {
    const stat = await Bun.file(thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`).text()
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100 // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return Number.NaN
  }
}

type Result = Measurement & { cpuUsPerRequest: number; mainThreadUsPerRequest: number }
type Target = typeof passthrough

async function measureTarget(target: Target): Promise<Result> {
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${target.info.key ?? 'none'}` }
  // A lead-in of load, not measured, right before every measured run: whatever the previous proxy left running (Tollgate
  // works on for 100-250 ms after its load stops: the last usage batch, the WAL checkpoint, a garbage collection) is
  // over by then, and the measured run starts in this proxy's steady state, its own deferred work included.
  await measure(`${target.info.url}${path}`, body, headers, 2, connections)
  const pid = target.child.pid
  const [cpuBefore, mainBefore] = [await cpuMs(pid), await cpuMs(pid, pid)]
  const result = await measure(`${target.info.url}${path}`, body, headers, seconds, connections)
  const cpuUsPerRequest = (((await cpuMs(pid)) - cpuBefore) * 1000) / result.requests
  const mainThreadUsPerRequest = (((await cpuMs(pid, pid)) - mainBefore) * 1000) / result.requests
  return { ...result, cpuUsPerRequest, mainThreadUsPerRequest }
}

const row = (name: string, result: Result) =>
  `${name.padEnd(12)} ${result.rps.toFixed(0).padStart(8)} req/s   p50 ${result.p50.toFixed(2).padStart(7)} ms   p99 ${result.p99.toFixed(2).padStart(7)} ms   ` +
  `CPU ${result.cpuUsPerRequest.toFixed(0).padStart(4)} µs/req (main thread ${result.mainThreadUsPerRequest.toFixed(0).padStart(4)})   errors ${result.errors}`

// Rounds alternate which proxy goes first, so a machine that speeds up or slows down during the run (a shared VM
// does) weighs on both alike; the ratio reported is the median of the rounds'.
const ratios: number[] = []
try {
  for (let round = 1; round <= rounds; round++) {
    const order = round % 2 === 1 ? [passthrough, tollgate] : [tollgate, passthrough]
    const results = new Map<Target, Result>()
    for (const target of order) results.set(target, await measureTarget(target))
    const ratio = results.get(tollgate)!.rps / results.get(passthrough)!.rps
    ratios.push(ratio)
    console.log(
      `\nround ${round} of ${rounds}: ${label}, ${connections} connections, ` +
        `${seconds} s each, upstream delay ${upstreamDelayMs} ms, tool: ${results.get(tollgate)!.tool}`,
    )
    console.log(row('passthrough', results.get(passthrough)!))
    console.log(row('tollgate', results.get(tollgate)!))
    console.log(`ratio tollgate/passthrough: ${ratio.toFixed(2)}`)
  }
} finally {
  tollgate.child.kill('SIGTERM')
  await tollgate.child.exited
  passthrough.child.kill()
  upstream.child.kill()
}

const sorted = [...ratios].sort((a, b) => a - b)
const median = sorted[Math.floor(sorted.length / 2)]!
console.log(
  `\nmedian ratio tollgate/passthrough over ${rounds} round${rounds === 1 ? '' : 's'}: ${median.toFixed(2)} ` +
    `(rounds ${sorted[0]!.toFixed(2)}–${sorted.at(-1)!.toFixed(2)}; target ≥ 0.80)`,
)
