/**
 * CPU per request of Tollgate in this checkout and in others (say, a `git worktree` of main before a change), and of
 * the raw passthrough, measured side by side:
 *
 *   bun bench/compare.ts [--slices 20] [--connections 50] [--stream] [--tenants 50] [--operation embeddings] [--redis redis://127.0.0.1:6379/15]
 *     [--postgres postgres://postgres@127.0.0.1:5432/test] ../tollgate-before [...]
 *
 * `--tenants N` spreads the load over N accounts with a key each, every request the next key in turn (wrk), as a
 * gateway of many tenants is used: their usage rows, leases and keys land in many places, not at one. A checkout
 * from before this option serves them all with its one key.
 * `--operation embeddings` sends OpenAI embeddings requests instead of chat completions (bench/workloads.ts); a
 * checkout from before embeddings answers them with 404s, so compare such a run with this checkout alone.
 * `--redis URL` adds two targets of this checkout whose key has an rpm limit (never reached): one counting it in
 * memory, one in Redis — the cost of shared limits (one script round trip per admission).
 * `--postgres URL` adds this checkout serving from a fresh PostgreSQL database made through URL (dropped at the end),
 * and with `--redis` also that with the rpm limit in Redis: the scaled-out set-up, one instance of it.
 *
 * `--floor` adds bench/floor-proxy.ts: the trivial proxy plus only the work Tollgate's billing rules cannot do without
 * (key by hash, body parsed, hold in memory, usage read, a bill committed before the answer ends).
 * `--proxy SCRIPT` (repeatable) adds another of bench/'s proxies, as `--proxy socket-proxy.ts`: the trivial proxy
 * calling its upstream on plain sockets instead of fetch.
 *
 * `--budgets` adds a target of this checkout whose key is under three budgets (its account's monthly in a zone, its
 * project's 5h window, its own daily; never reached): the cost of budgets on the hot path, against "this" (none).
 *
 * `--telemetry` adds a target of this checkout that traces every request (sample_ratio 1) to an OTLP collector
 * stand-in (bench/otlp-collector.ts): the cost of tracing (spans made, batched, encoded and posted); the spans it
 * exported and dropped are printed from its /metrics.
 *
 * Every server runs at once; wrk loads them one at a time in 1-second slices, taking turns in a rotating order.
 * Each process's CPU time (all threads, from /proc) over the whole run, the work it defers past its slices included,
 * is divided by the requests it served. A shared VM's speed drifts by tens of percent over seconds, which makes req/s
 * from `run.ts` unable to tell a 3% change from noise (the same code gave round ratios from 0.71 to 1.08); turns of
 * one second make that drift weigh on every checkout alike, and the same code measures within ~2% of itself.
 *
 * Each checkout needs its own `bun install`d node_modules (a symlink to this one's will do). Loopback only; the run
 * stops by itself. Not part of CI.
 */
import { parseArgs } from 'node:util'
import { resolve } from 'node:path'
import { measure } from './measure.ts'
import { workload } from './workloads.ts'

const { values, positionals } = parseArgs({
  options: {
    slices: { type: 'string', default: '20' },
    connections: { type: 'string', default: '50' },
    stream: { type: 'boolean', default: false },
    operation: { type: 'string', default: 'chat' },
    redis: { type: 'string' },
    postgres: { type: 'string' },
    telemetry: { type: 'boolean', default: false },
    budgets: { type: 'boolean', default: false },
    floor: { type: 'boolean', default: false },
    proxy: { type: 'string', multiple: true, default: [] },
    tenants: { type: 'string', default: '1' },
  },
  allowPositionals: true,
})
const slices = Number(values.slices)
const connections = Number(values.connections)
const here = resolve(import.meta.dir, '..')
const checkouts = [here, ...positionals.map((path) => resolve(path))]

async function spawnServer(directory: string, script: string, env: Record<string, string> = {}) {
  const child = Bun.spawn(['bun', script], { cwd: `${directory}/bench`, env: { ...process.env, ...env }, stdout: 'pipe', stderr: 'ignore' })
  const reader = child.stdout.getReader()
  const { value } = await reader.read()
  reader.releaseLock()
  return { child, info: JSON.parse(new TextDecoder().decode(value).split('\n')[0]!) as { url: string; key?: string; keys?: string[] } }
}

/** User + system CPU time of a whole process so far, in ms (Linux: /proc/<pid>/stat, USER_HZ = 100). */
async function cpuMs(pid: number): Promise<number> {
  const stat = await Bun.file(`/proc/${pid}/stat`).text()
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10
}

const upstream = await spawnServer(here, 'upstream.ts')
const targets = [{ name: 'passthrough', ...(await spawnServer(here, 'passthrough.ts', { UPSTREAM_URL: upstream.info.url })) }]
if (values.floor) targets.push({ name: 'floor proxy', ...(await spawnServer(here, 'floor-proxy.ts', { UPSTREAM_URL: upstream.info.url })) })
for (const script of values.proxy) targets.push({ name: script, ...(await spawnServer(here, script, { UPSTREAM_URL: upstream.info.url })) })
for (const checkout of checkouts) {
  targets.push({
    name: checkout === here ? `${checkout} (this)` : checkout,
    ...(await spawnServer(checkout, 'tollgate.ts', { UPSTREAM_URL: upstream.info.url, BENCH_TENANTS: values.tenants })),
  })
}
if (values.redis) {
  const limited = { UPSTREAM_URL: upstream.info.url, BENCH_RPM: '1000000000' }
  targets.push({ name: 'this, rpm limit in memory', ...(await spawnServer(here, 'tollgate.ts', limited)) })
  targets.push({ name: 'this, rpm limit in redis', ...(await spawnServer(here, 'tollgate.ts', { ...limited, BENCH_REDIS: values.redis })) })
}
let dropDatabase = async () => {}
if (values.postgres) {
  const { SQL } = await import('bun')
  const admin = new SQL(values.postgres, { max: 1 })
  const name = `tollgate_bench_${process.pid}`
  await admin.unsafe(`CREATE DATABASE ${name}`)
  const url = new URL(values.postgres)
  url.pathname = `/${name}`
  dropDatabase = async () => {
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    await admin.close()
  }
  const onPostgres = { UPSTREAM_URL: upstream.info.url, BENCH_DATABASE: url.toString() }
  targets.push({ name: 'this, postgres', ...(await spawnServer(here, 'tollgate.ts', onPostgres)) })
  if (values.redis) {
    targets.push({
      name: 'this, postgres, rpm limit in redis',
      ...(await spawnServer(here, 'tollgate.ts', { ...onPostgres, BENCH_RPM: '1000000000', BENCH_REDIS: values.redis })),
    })
  }
}
if (values.budgets)
  targets.push({
    name: 'this, key under three budgets',
    ...(await spawnServer(here, 'tollgate.ts', { UPSTREAM_URL: upstream.info.url, BENCH_BUDGETS: '1' })),
  })
const collector = values.telemetry ? await spawnServer(here, 'otlp-collector.ts') : undefined
if (collector)
  targets.push({
    name: 'this, traced',
    ...(await spawnServer(here, 'tollgate.ts', { UPSTREAM_URL: upstream.info.url, BENCH_OTLP: collector.info.url })),
  })
const { path, body, label } = workload(values.operation, values.stream)
const load = (target: (typeof targets)[number], seconds: number) =>
  measure(
    `${target.info.url}${path}`,
    body,
    { 'content-type': 'application/json', authorization: `Bearer ${target.info.key ?? 'none'}` },
    seconds,
    connections,
    target.info.keys,
  )

try {
  for (const target of targets) await load(target, 2) // warm up: JIT, connection pools, the first leases
  const served = targets.map(() => ({ requests: 0, seconds: 0, errors: 0, p50: [] as number[] }))
  const cpuBefore = await Promise.all(targets.map((target) => cpuMs(target.child.pid)))
  for (let slice = 0; slice < slices; slice++) {
    for (let turn = 0; turn < targets.length; turn++) {
      const index = (turn + slice) % targets.length
      const result = await load(targets[index]!, 1)
      served[index]!.requests += result.requests
      served[index]!.seconds += result.requests / result.rps
      served[index]!.errors += result.errors
      served[index]!.p50.push(result.p50)
    }
  }
  await Bun.sleep(1500) // let the last slice's deferred work (usage batch, checkpoint, collection) be counted
  const cpuAfter = await Promise.all(targets.map((target) => cpuMs(target.child.pid)))
  console.log(`${slices} one-second slices each, ${connections} connections, ${label}`)
  targets.forEach((target, index) => {
    const { requests, seconds, errors, p50 } = served[index]!
    const cpu = ((cpuAfter[index]! - cpuBefore[index]!) * 1000) / requests
    const medianP50 = p50.sort((a, b) => a - b)[Math.floor(p50.length / 2)] ?? 0
    console.log(
      `${target.name.padEnd(40)} ${(requests / seconds).toFixed(0).padStart(7)} req/s   CPU ${cpu.toFixed(1).padStart(6)} µs/req   p50 ${medianP50.toFixed(2)} ms   errors ${errors}`,
    )
  })
  if (collector) {
    const metrics = await (await fetch(`${targets.at(-1)!.info.url}/metrics`)).text()
    console.log(
      metrics
        .split('\n')
        .filter((line) => line.startsWith('tollgate_trace_spans'))
        .join('   '),
    )
  }
} finally {
  for (const target of targets) target.child.kill('SIGKILL')
  upstream.child.kill()
  await dropDatabase()
  collector?.child.kill()
}
