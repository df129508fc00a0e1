/**
 * Where Tollgate's CPU goes in one capacity scenario (bench/capacity.ts): one fresh, warmed-up Tollgate run under the
 * scenario with `bun --cpu-prof-md` (with `PROFILE_FORMAT=json`, `--cpu-prof`: a .cpuprofile, whose samples a script
 * can count), and each of its threads' CPU per unit of work from /proc — the main (JS) thread, Bun's HTTP client thread
 * (every upstream fetch), the JIT, the collector's helpers and the WAL checkpoint thread. `--proxy` profiles the
 * trivial proxy, the JS read loop or the billing floor (bench/floor-proxy.ts) instead, for comparison.
 *
 *   bun bench/profile.ts [--scenario rate|chunks|idle|saturated] [--proxy tollgate|passthrough|read-loop|floor-proxy|socket-proxy] [--out /tmp/tollgate-profile]
 *     [--model bench-model] [--rate 400] [--warm-seconds 24] [--seconds 8] [--streams 600] [--chunks 150] [--interval-ms 50] [--stream] [--connections 50]
 *
 * `saturated` is compare.ts's load (wrk, whole answers or with `--stream` streamed ones) on this one process; with
 * `BENCH_TENANTS=N` in the environment, spread over N keys as `compare.ts --tenants N` does.
 * The profile (Markdown, written when Tollgate stops) counts a function's samples under "Samples:"; its time
 * columns weigh each sample by the gap before it, idle gaps included, so read the sample counts — or write a
 * .cpuprofile (`PROFILE_FORMAT=json`) and count them with `bun bench/count-samples.ts`; `PROFILE_FORMAT=none` runs
 * without the profiler, for the threads' CPU alone; `PROFILE_INTERVAL` sets the sampling interval in µs (1000 unless
 * set: a burst of a second, as the idle scenario's, wants 100). `rate` warms up as capacity.ts does (4 s at 5×, then
 * `--warm-seconds` at the rate) before it measures. Not part of CI.
 */
import { parseArgs } from 'node:util'
import { runAtRate } from './fixed-rate.ts'
import { chunksWarmUp, type Proxy, startClient, startWarm, stop } from './long-streams.ts'
import { measure } from './measure.ts'
import { spawnServer, threadsCpuMs } from './processes.ts'
import { workload } from './workloads.ts'

const { values } = parseArgs({
  options: {
    scenario: { type: 'string', default: 'rate' },
    proxy: { type: 'string', default: 'tollgate' },
    out: { type: 'string', default: '/tmp/tollgate-profile' },
    model: { type: 'string', default: 'bench-model' },
    rate: { type: 'string', default: '400' },
    'warm-seconds': { type: 'string', default: '24' },
    seconds: { type: 'string', default: '8' },
    streams: { type: 'string', default: '600' },
    chunks: { type: 'string', default: '150' },
    'interval-ms': { type: 'string', default: '50' },
    stream: { type: 'boolean', default: false },
    connections: { type: 'string', default: '50' },
  },
})
const { scenario, model, out } = values
const streams = Number(values.streams)
const upstream = await spawnServer('upstream.ts')
const proxies: Proxy[] = ['tollgate', 'passthrough', 'read-loop', 'floor-proxy', 'socket-proxy']
const proxy = proxies.find((name) => name === values.proxy)
if (!proxy) throw new Error(`--proxy must be one of ${proxies.join(', ')}, not ${values.proxy}`)
const tollgate = await startWarm(
  proxy,
  upstream.info.url,
  model,
  // PROFILE_FORMAT=none: no profiler at all, for the threads' CPU alone (the sampler's signals cost the main thread).
  process.env.PROFILE_FORMAT === 'none'
    ? {}
    : {
        BUN_OPTIONS: `${process.env.PROFILE_FORMAT === 'json' ? '--cpu-prof' : '--cpu-prof-md'} --cpu-prof-dir=${out} --cpu-prof-interval=${process.env.PROFILE_INTERVAL ?? 1000}`,
      },
  scenario === 'chunks' ? chunksWarmUp : undefined,
)

/**
 * Run the scenario; returns how many units (requests, chunks, streams) the CPU is divided by, what they are, and
 * (saturated) the threads' CPU once its lead-in was over.
 */
async function run(): Promise<[number, string, Map<string, number>?]> {
  if (scenario === 'rate') {
    const body = JSON.stringify({ model, stream: false, messages: [{ role: 'user', content: 'How fast is this gateway?' }] })
    // As capacity.ts warms up: until the JIT has compiled what runs at this rate (BUN_JSC_reportCompileTimes).
    await runAtRate(tollgate, body, Number(values.rate) * 5, 4)
    await runAtRate(tollgate, body, Number(values.rate), Number(values['warm-seconds']))
    // Counted from here: the warm-ups' CPU divided by the measured requests made every figure several times too high.
    const before = await threadsCpuMs(tollgate.child.pid)
    const result = await runAtRate(tollgate, body, Number(values.rate), Number(values.seconds))
    return [result.latencies.length, 'request', before]
  }
  if (scenario === 'chunks') {
    const chunks = Number(values.chunks)
    await startClient(tollgate, model, streams, `long chunks=${chunks} interval_ms=${values['interval-ms']}`, false).line
    await Bun.sleep(250) // the last settlements
    return [streams * chunks, 'chunk']
  }
  if (scenario === 'saturated') {
    // compare.ts's load: wrk with as many connections as it takes to keep the process busy, after 3 s unmeasured.
    const { path, body } = workload('chat', values.stream)
    const url = `${tollgate.info.url}${path}`
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${tollgate.info.key ?? 'none'}` }
    const connections = Number(values.connections)
    await measure(url, body, headers, 3, connections, tollgate.info.keys)
    const before = await threadsCpuMs(tollgate.child.pid)
    const result = await measure(url, body, headers, Number(values.seconds), connections, tollgate.info.keys)
    console.log(`saturated: ${result.rps.toFixed(0)} req/s`)
    return [result.requests, values.stream ? 'streamed request' : 'request', before]
  }
  if (scenario !== 'idle') throw new Error(`--scenario must be rate, chunks, idle or saturated, not ${scenario}`)
  const client = startClient(tollgate, model, streams, 'hold', true)
  await client.line
  await Bun.sleep(2000)
  client.child.stdin.end()
  await client.child.exited
  return [streams, 'stream opened, held and closed']
}

try {
  const started = await threadsCpuMs(tollgate.child.pid)
  const [units, unit, before = started] = await run()
  const after = await threadsCpuMs(tollgate.child.pid)
  const rows = [...after]
    .map(([thread, ms]) => [thread, ((ms - (before.get(thread) ?? 0)) * 1000) / units] as const)
    .filter(([, us]) => us > 0)
  console.log(`${scenario}: CPU µs per ${unit} (${units}), by thread`)
  for (const [thread, us] of rows.sort((a, b) => b[1] - a[1])) console.log(`  ${thread.padEnd(28)} ${us.toFixed(2).padStart(9)}`)
  console.log(
    `  ${'all'.padEnd(28)} ${rows
      .reduce((sum, [, us]) => sum + us, 0)
      .toFixed(2)
      .padStart(9)}`,
  )
} finally {
  await stop(tollgate)
  upstream.child.kill('SIGKILL')
}
// Processes Tollgate starts inherit BUN_OPTIONS and write profiles of their own: Tollgate's carries its process id.
const profiles =
  process.env.PROFILE_FORMAT === 'none' ? [] : [...new Bun.Glob(`CPU.*.${tollgate.child.pid}.*.{md,cpuprofile}`).scanSync(out)]
console.log(`profile: ${profiles.map((name) => `${out}/${name}`).join(', ') || `none written in ${out}`}`)
