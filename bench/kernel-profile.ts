/**
 * Where a proxy's on-CPU time goes, the kernel's included: `perf record -e cpu-clock` on one warmed-up process under a
 * capacity scenario, each sample put under what it was doing — the system call it was in (by name), a page fault,
 * an interrupt, JIT-compiled JS, the runtime's native code (Bun's, JavaScriptCore's and SQLite's, one stripped
 * binary), libc, other kernel work — per thread, the main (JS) thread first.
 *
 * Bun's own profiler (profile.ts) samples wall time and only JS frames: it cannot tell a system call from the native
 * function that made it, or a thread waiting from one working. This one counts CPU alone, and shows what the main
 * thread spends in the kernel (connect, send, the WAL's pwrite, the locks' fcntl, madvise), which is where most of
 * what is left of issue 23's gap lies (docs/capacity.md, seventeenth round).
 *
 *   bun bench/kernel-profile.ts [--scenario rate|burst|saturated] [--proxy tollgate|passthrough|socket-proxy|floor-proxy]
 *     [--rate 400] [--warm-seconds 24] [--seconds 5] [--streams 2000] [--connections 50] [--stream] [--frequency 1000]
 *
 * - rate: whole answers at `--rate`/s, open-loop, after capacity.ts's warm-up; samples over `--seconds`.
 * - burst: `--streams` streams opened at once and held after their first chunk (capacity.ts idle); samples from
 *   just before the burst until every stream has begun, with the first chunk's p50/p99.
 * - saturated: compare.ts's load (wrk, `--connections`), whole answers or `--stream`ed ones.
 * Needs `perf` (Debian's linux-perf) and a kernel that lets it sample (perf_event_paranoid ≤ 1, or root). Loopback
 * only; not part of CI.
 */
import { parseArgs } from 'node:util'
import { runAtRate } from './fixed-rate.ts'
import { type Proxy, startClient, startWarm, stop } from './long-streams.ts'
import { measure } from './measure.ts'
import { percentile, spawnServer } from './processes.ts'
import { workload } from './workloads.ts'
import { countSamples, printCounts } from './perf-samples.ts'

const { values } = parseArgs({
  options: {
    scenario: { type: 'string', default: 'rate' },
    proxy: { type: 'string', default: 'tollgate' },
    rate: { type: 'string', default: '400' },
    'warm-seconds': { type: 'string', default: '24' },
    seconds: { type: 'string', default: '5' },
    streams: { type: 'string', default: '2000' },
    connections: { type: 'string', default: '50' },
    stream: { type: 'boolean', default: false },
    frequency: { type: 'string', default: '1000' },
  },
})
const proxies: Proxy[] = ['tollgate', 'passthrough', 'socket-proxy', 'floor-proxy']
const proxy = proxies.find((name) => name === values.proxy)
if (!proxy) throw new Error(`--proxy must be one of ${proxies.join(', ')}, not ${values.proxy}`)
if (Bun.which('perf') === null) throw new Error('perf is not installed (apt-get install linux-perf)')

const model = 'bench-model'
const data = `/tmp/tollgate-kernel-profile-${process.pid}.data`
const upstream = await spawnServer('upstream.ts')
const server = await startWarm(proxy, upstream.info.url, model)
let units = 0
let unit = 'request'
try {
  const record = await prepare()
  const perf = Bun.spawn(['perf', 'record', '-e', 'cpu-clock', '-F', values.frequency, '-g', '-o', data, '-p', String(server.child.pid)], {
    stdout: 'ignore',
    stderr: 'ignore',
  })
  await Bun.sleep(500) // perf attaches to every thread before the load begins
  units = await record()
  perf.kill('SIGINT')
  await perf.exited
} finally {
  await stop(server)
  upstream.child.kill('SIGKILL')
}
const script = Bun.spawnSync(['perf', 'script', '-i', data, '-F', 'comm,tid,ip,sym,dso'], { stdout: 'pipe', stderr: 'ignore' })
await Bun.file(data).delete()
printCounts(countSamples(script.stdout.toString(), server.child.pid), Number(values.frequency), units, unit)

/** The scenario's unmeasured lead-in; returns the measured run, which resolves to how many units it served. */
async function prepare(): Promise<() => Promise<number>> {
  if (values.scenario === 'rate') {
    const body = JSON.stringify({ model, stream: false, messages: [{ role: 'user', content: 'How fast is this gateway?' }] })
    await runAtRate(server, body, Number(values.rate) * 5, 4)
    await runAtRate(server, body, Number(values.rate), Number(values['warm-seconds']))
    return async () => (await runAtRate(server, body, Number(values.rate), Number(values.seconds))).latencies.length
  }
  if (values.scenario === 'burst') {
    unit = 'stream'
    return async () => {
      const client = startClient(server, model, Number(values.streams), 'hold', true)
      const { firstChunkMs } = await client.line
      console.log(`first chunk p50 ${percentile(firstChunkMs, 0.5).toFixed(0)} ms, p99 ${percentile(firstChunkMs, 0.99).toFixed(0)} ms`)
      client.child.stdin.end()
      await client.child.exited
      return firstChunkMs.length
    }
  }
  if (values.scenario !== 'saturated') throw new Error(`--scenario must be rate, burst or saturated, not ${values.scenario}`)
  const { path, body } = workload('chat', values.stream)
  const url = `${server.info.url}${path}`
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${server.info.key ?? 'none'}` }
  const connections = Number(values.connections)
  await measure(url, body, headers, 3, connections)
  return async () => (await measure(url, body, headers, Number(values.seconds), connections)).requests
}
