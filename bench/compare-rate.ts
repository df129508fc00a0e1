/**
 * compare.ts at a fixed open-loop rate instead of saturation: Tollgate from this checkout and from others (a
 * `git worktree` of the commit before a change, say) and the trivial proxy, all running at once, take turns of
 * `--seconds` at `--rate` whole answers a second, in an order that reverses every round, after a warm-up of all of
 * them at once as capacity.ts's latency scenario does (4 s at five times the rate, then `--warm-seconds` at the rate).
 * Prints each one's CPU per request (all threads, and the main thread alone) as the median of its turns, every turn,
 * and the ratio to the trivial proxy.
 *
 *   bun bench/compare-rate.ts [--rate 400] [--seconds 4] [--rounds 6] [--warm-seconds 24] [--floor] [--proxy SCRIPT] ../tollgate-before [...]
 *
 * `--floor` adds bench/floor-proxy.ts: the trivial proxy plus only the work Tollgate's billing rules cannot do without.
 * `--proxy SCRIPT` (repeatable) adds another of bench/'s proxies, as `--proxy socket-proxy.ts`.
 *
 * At 400/s a request's CPU is mostly fixed costs (a commit of its own, timers, waking threads) and moves by a tenth
 * between runs of the same code as the machine drifts; taking turns makes the drift weigh on every target alike
 * (2026-11-27: the usage inbox measured −5% here, +2–4% and −6% in two runs of profile.ts one after the other).
 * Each checkout needs its own `bun install`d node_modules (a symlink to this one's will do). Not part of CI.
 */
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { runAtRate } from './fixed-rate.ts'
import { type Server, spawnServer, threadsCpuMs } from './processes.ts'

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    rate: { type: 'string', default: '400' },
    seconds: { type: 'string', default: '4' },
    rounds: { type: 'string', default: '6' },
    'warm-seconds': { type: 'string', default: '24' },
    floor: { type: 'boolean', default: false },
    proxy: { type: 'string', multiple: true, default: [] },
  },
})
const rate = Number(values.rate)
const upstream = await spawnServer('upstream.ts')
const env = { UPSTREAM_URL: upstream.info.url }
const targets: { name: string; server: Server; all: number[]; main: number[] }[] = [
  { name: 'trivial proxy', server: await spawnServer('passthrough.ts', env), all: [], main: [] },
]
if (values.floor) targets.push({ name: 'floor proxy', server: await spawnServer('floor-proxy.ts', env), all: [], main: [] })
for (const script of values.proxy) targets.push({ name: script, server: await spawnServer(script, env), all: [], main: [] })
for (const checkout of [resolve(import.meta.dir, '..'), ...positionals.map((path) => resolve(path))]) {
  const name = checkout === resolve(import.meta.dir, '..') ? `${checkout} (this)` : checkout
  targets.push({ name, server: await spawnServer('tollgate.ts', env, `${checkout}/bench`, 'ignore'), all: [], main: [] })
}
const body = JSON.stringify({ model: 'bench-model', stream: false, messages: [{ role: 'user', content: 'How fast is this gateway?' }] })
try {
  await Promise.all(targets.map(({ server }) => runAtRate(server, body, rate * 5, 4)))
  await Promise.all(targets.map(({ server }) => runAtRate(server, body, rate, Number(values['warm-seconds']))))
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const target of round % 2 === 0 ? targets : [...targets].reverse()) {
      const { pid } = target.server.child
      const before = await threadsCpuMs(pid)
      const result = await runAtRate(target.server, body, rate, Number(values.seconds))
      let all = 0
      let main = 0
      for (const [thread, ms] of await threadsCpuMs(pid)) {
        const used = ms - (before.get(thread) ?? 0)
        all += used
        if (thread.startsWith(`${pid} `)) main += used // the main (JS) thread's id is the process id
      }
      target.all.push((all * 1000) / result.latencies.length)
      target.main.push((main * 1000) / result.latencies.length)
    }
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
  const trivial = median(targets[0]!.all)
  console.log(`${rate} whole answers/s, ${values.rounds} turns of ${values.seconds} s each: CPU µs a request (median of the turns)`)
  for (const { name, all, main } of targets) {
    console.log(
      `${name.padEnd(40)} all threads ${median(all).toFixed(0).padStart(5)} (${(median(all) / trivial).toFixed(2)}×)  ` +
        `main thread ${median(main).toFixed(0).padStart(5)}   turns: ${all.map((value) => value.toFixed(0)).join(' ')}`,
    )
  }
} finally {
  for (const { server } of targets) server.child.kill('SIGKILL')
  upstream.child.kill('SIGKILL')
}
