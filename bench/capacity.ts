/**
 * The capacity benchmarks (issue 23), each side by side with the trivial proxy (bench/passthrough.ts) in one run, every
 * process with Bun's fetch ceiling raised:
 *
 *   bun bench/capacity.ts [--scenario all|latency|chunks|idle] [--rounds 3]
 *     [--rate 400] [--seconds 5] [--warm-seconds 24]         latency: open-loop whole answers at a fixed rate
 *     [--streams 600] [--chunks 150] [--interval-ms 50]      chunks: long streams read to their end
 *     [--idle-streams 2000]                                  idle: streams held open after their first chunk
 *
 * - latency: the upstream called directly, the trivial proxy and Tollgate take turns (`--seconds` each, rotating) at
 *   `--rate` requests a second, sent open-loop. Latency percentiles, what each proxy adds to the direct call, and each
 *   proxy's CPU per request over its turns, everything it runs meanwhile included (pollers, timers, commits).
 * - chunks: `--streams` streams of `--chunks` chunks (one every `--interval-ms`) all at once, through a fresh process of
 *   each: the trivial proxy, a JS read loop (read-loop.ts: the least a proxy that sees the bytes must do), Tollgate's
 *   passthrough route (Chat Completions both sides) and its translated route (Chat Completions in, Anthropic Messages
 *   upstream). CPU per chunk and peak resident memory.
 * - idle: `--idle-streams` streams opened at once and held open after their first chunk: time to the first chunk, and
 *   resident memory per open stream.
 * Rounds alternate which proxy goes first; the summary gives the median of the rounds and the ratio to the trivial
 * proxy. Loopback only; Linux (/proc); every run stops by itself. Not part of CI.
 */
import { parseArgs } from 'node:util'
import { idleCpu, runAtRate, type RateResult } from './fixed-rate.ts'
import { runChunks, runIdle, type StreamRun } from './long-streams.ts'
import { median, percentile, spawnServer, type Server } from './processes.ts'

const { values } = parseArgs({
  options: {
    scenario: { type: 'string', default: 'all' },
    rounds: { type: 'string', default: '3' },
    rate: { type: 'string', default: '400' },
    seconds: { type: 'string', default: '5' },
    'warm-seconds': { type: 'string', default: '24' },
    streams: { type: 'string', default: '600' },
    chunks: { type: 'string', default: '150' },
    'interval-ms': { type: 'string', default: '50' },
    'idle-streams': { type: 'string', default: '2000' },
  },
})
const rounds = Number(values.rounds)
const wanted = (name: string) => values.scenario === 'all' || values.scenario === name
const upstream = await spawnServer('upstream.ts')
const summary: string[] = []
const figure = (value: number) => (Number.isInteger(value) ? String(value) : value.toFixed(value < 10 ? 2 : value < 100 ? 1 : 0))
const row = (...cells: (string | number)[]) => `| ${cells.map((cell) => (typeof cell === 'number' ? figure(cell) : cell)).join(' | ')} |`

async function latencyScenario(): Promise<void> {
  const rate = Number(values.rate)
  const seconds = Number(values.seconds)
  const warmSeconds = Number(values['warm-seconds'])
  const direct: Server = { child: upstream.child, info: upstream.info }
  const trivial = await spawnServer('passthrough.ts', { UPSTREAM_URL: upstream.info.url })
  const tollgate = await spawnServer('tollgate.ts', { UPSTREAM_URL: upstream.info.url })
  const targets = [
    { name: 'upstream, direct', server: direct },
    { name: 'trivial proxy', server: trivial },
    { name: 'tollgate', server: tollgate },
  ]
  const body = JSON.stringify({ model: 'bench-model', stream: false, messages: [{ role: 'user', content: 'How fast is this gateway?' }] })
  try {
    // Warm up, every target at once: 4 s at five times the rate, then `--warm-seconds` at the rate. A request that
    // arrives alone runs code that a busy second does not (a bill committed alone, the deadline lanes' timers firing
    // between requests), and Tollgate's JIT compiles it only at the rate: after 4 s at 5× and 2 s at the rate, it
    // still compiled 110 ms in the next 10 s and 105 ms in the 10 s after (~27 µs a request), then 2–8 ms per 10 s
    // (BUN_JSC_reportCompileTimes=1, 2026-11-27). That is a one-off cost a running server has long paid.
    await Promise.all(
      targets.map(async ({ server }) => {
        await runAtRate(server, body, rate * 5, 4)
        await runAtRate(server, body, rate, warmSeconds)
      }),
    )
    // Read right after the warm-up, so it includes what a load leaves behind (collections, the allocator's purges,
    // leases released): Tollgate's main thread stays at 20–40 ms/s for more than 14 s after such a load, against
    // 2–3 ms/s long idle (2026-11-27).
    const idle = await Promise.all([trivial, tollgate].map((server) => idleCpu(server, 5)))
    const results = targets.map(() => [] as RateResult[])
    for (let round = 0; round < rounds; round++) {
      for (let turn = 0; turn < targets.length; turn++) {
        const index = (turn + round) % targets.length
        results[index]!.push(await runAtRate(targets[index]!.server, body, rate, seconds))
      }
    }
    const all = results.map((runs) => ({
      latencies: runs.flatMap((run) => run.latencies),
      cpuUs: (runs.reduce((sum, run) => sum + run.cpuMs, 0) * 1000) / runs.reduce((sum, run) => sum + run.latencies.length, 0),
      errors: runs.reduce((sum, run) => sum + run.errors, 0),
    }))
    const [p50, p99] = [0.5, 0.99].map((fraction) => all.map((target) => percentile(target.latencies, fraction)))
    summary.push(
      `\nlatency: ${rate} whole answers/s open-loop, ${rounds} turns of ${seconds} s each; CPU in the 5 s of no traffic right after the warm-up: ` +
        `trivial proxy ${idle[0]!.toFixed(1)} ms/s, tollgate ${idle[1]!.toFixed(1)} ms/s`,
    )
    summary.push(row('target', 'p50 ms', 'p99 ms', 'added to direct p50 / p99 ms', 'CPU µs/req', 'CPU ratio to trivial', 'errors'))
    summary.push(row('---', '---', '---', '---', '---', '---', '---'))
    targets.forEach((target, index) => {
      const added = index === 0 ? '' : `${(p50[index]! - p50[0]!).toFixed(2)} / ${(p99[index]! - p99[0]!).toFixed(2)}`
      const cpu = index === 0 ? '' : all[index]!.cpuUs
      const ratio = index === 2 ? (all[2]!.cpuUs / all[1]!.cpuUs).toFixed(2) : ''
      summary.push(row(target.name, p50[index]!, p99[index]!, added, cpu, ratio, all[index]!.errors))
    })
    summary.push(
      `tollgate beyond the trivial proxy: p50 +${(p50[2]! - p50[1]!).toFixed(2)} ms, p99 +${(p99[2]! - p99[1]!).toFixed(2)} ms ` +
        `(targets: ≤ 0.3 / ≤ 1 ms); CPU per request ${(all[2]!.cpuUs / all[1]!.cpuUs).toFixed(2)}× (target ≤ 1.5×)`,
    )
  } finally {
    trivial.child.kill('SIGKILL')
    tollgate.child.kill('SIGKILL')
  }
}

/** Run each proxy route `rounds` times, alternating which goes first; the median of each figure. */
async function alternate(routes: { name: string; run: () => Promise<StreamRun> }[]): Promise<Map<string, StreamRun>> {
  const runs = new Map(routes.map((route) => [route.name, [] as StreamRun[]]))
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? routes : [...routes].reverse()
    for (const route of order) {
      const run = await route.run()
      console.error(`  ${route.name}: ${JSON.stringify(run)}`)
      runs.get(route.name)!.push(run)
    }
  }
  const medians = new Map<string, StreamRun>()
  for (const [name, list] of runs) {
    const pick = (field: keyof StreamRun) => median(list.map((run) => run[field] as number))
    medians.set(name, {
      firstChunkP50: pick('firstChunkP50'),
      firstChunkP99: pick('firstChunkP99'),
      begun: pick('begun'),
      failed: pick('failed'),
      baselineMb: pick('baselineMb'),
      peakMb: pick('peakMb'),
      cpuPerChunkUs: pick('cpuPerChunkUs'),
      perStreamKb: pick('perStreamKb'),
    })
  }
  return medians
}

async function chunksScenario(): Promise<void> {
  const [streams, chunks, intervalMs] = [Number(values.streams), Number(values.chunks), Number(values['interval-ms'])]
  const url = upstream.info.url
  const results = await alternate([
    { name: 'trivial proxy', run: () => runChunks('passthrough', url, 'bench-model', streams, chunks, intervalMs) },
    {
      name: 'JS read loop (the floor of reading in JS)',
      run: () => runChunks('read-loop', url, 'bench-model', streams, chunks, intervalMs),
    },
    { name: 'tollgate, passthrough route', run: () => runChunks('tollgate', url, 'bench-model', streams, chunks, intervalMs) },
    { name: 'tollgate, translated route', run: () => runChunks('tollgate', url, 'bench-translated', streams, chunks, intervalMs) },
  ])
  const trivial = results.get('trivial proxy')!
  summary.push(`\nchunks: ${streams} streams × ${chunks} chunks (one every ${intervalMs} ms) at once, median of ${rounds} rounds`)
  summary.push(row('route', 'CPU µs/chunk', 'ratio to trivial', 'peak RSS MB', 'RSS before MB', 'first chunk p50 / p99 ms', 'failed'))
  summary.push(row('---', '---', '---', '---', '---', '---', '---'))
  for (const [name, run] of results) {
    summary.push(
      row(
        name,
        run.cpuPerChunkUs!,
        (run.cpuPerChunkUs! / trivial.cpuPerChunkUs!).toFixed(2),
        run.peakMb,
        run.baselineMb,
        `${run.firstChunkP50.toFixed(0)} / ${run.firstChunkP99.toFixed(0)}`,
        run.failed,
      ),
    )
  }
  summary.push('targets: CPU per chunk ≤ 1.5× (passthrough route), ≤ 2.0× (translated route)')
}

async function idleScenario(): Promise<void> {
  const streams = Number(values['idle-streams'])
  const url = upstream.info.url
  const results = await alternate([
    { name: 'trivial proxy', run: () => runIdle('passthrough', url, 'bench-model', streams) },
    { name: 'JS read loop (the floor of reading in JS)', run: () => runIdle('read-loop', url, 'bench-model', streams) },
    { name: 'tollgate, passthrough route', run: () => runIdle('tollgate', url, 'bench-model', streams) },
  ])
  const trivial = results.get('trivial proxy')!
  const tollgate = results.get('tollgate, passthrough route')!
  summary.push(`\nidle: ${streams} streams opened at once and held open after their first chunk, median of ${rounds} rounds`)
  summary.push(row('route', 'KB per open stream', 'RSS before / open MB', 'first chunk p50 ms', 'first chunk p99 ms', 'begun', 'failed'))
  summary.push(row('---', '---', '---', '---', '---', '---', '---'))
  for (const [name, run] of results) {
    summary.push(
      row(
        name,
        run.perStreamKb!,
        `${run.baselineMb.toFixed(0)} / ${run.peakMb.toFixed(0)}`,
        run.firstChunkP50,
        run.firstChunkP99,
        run.begun,
        run.failed,
      ),
    )
  }
  summary.push(
    `targets: memory per open stream ≤ 1.5× + 8 KB (here ≤ ${(trivial.perStreamKb! * 1.5 + 8).toFixed(1)} KB: ` +
      `${tollgate.perStreamKb!.toFixed(1)}); first chunk p99 within 100 ms of the trivial proxy's (here ${(tollgate.firstChunkP99 - trivial.firstChunkP99).toFixed(0)} ms)`,
  )
}

try {
  if (wanted('latency')) await latencyScenario()
  if (wanted('chunks')) await chunksScenario()
  if (wanted('idle')) await idleScenario()
} finally {
  upstream.child.kill('SIGKILL')
}
console.log(`\n${new Date().toISOString().slice(0, 10)}, ${navigator.hardwareConcurrency} cores, Bun ${Bun.version}`)
console.log(summary.join('\n'))
