/**
 * Object census: how many JS objects of each kind one request leaves behind, in Tollgate and in the raw passthrough,
 * counted by `heapStats()` (bun:jsc) before and after N requests with no collection in between. Allocation drives
 * the garbage collector's pauses and a good part of the CPU per request, and unlike req/s this count does not drift
 * with the machine's speed, so a change that allocates less shows here even when a noisy box hides it in req/s.
 * The counts include the in-process client's own objects (the same for both targets).
 *
 *   bun bench/census.ts [--requests 500] [--concurrency 10] [--stream]
 *
 * `--stream` asks for streamed answers (the upstream's six chunks each). Keep `--requests` low enough that no
 * collection runs between the two counts (a few hundred streams): one that does makes the count far too low.
 * `--concurrency 1` is the fixed-rate case (bench/capacity.ts latency, 400/s): requests arriving one by one, each
 * bill committed alone.
 */
import { heapStats } from 'bun:jsc'
import { parseArgs } from 'node:util'
import { startBenchGateway } from './bench-gateway.ts'

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '500' },
    concurrency: { type: 'string', default: '10' },
    stream: { type: 'boolean', default: false },
  },
})
const requests = Number(values.requests)
const concurrency = Number(values.concurrency)

// The upstream and the passthrough are the benchmark's own scripts, started in this process.
const { server: upstream } = await import('./upstream.ts')
process.env.UPSTREAM_URL = `http://127.0.0.1:${upstream.port}`
const { server: passthrough } = await import('./passthrough.ts')
const { gateway, secret } = await startBenchGateway(process.env.UPSTREAM_URL)

const body = JSON.stringify({
  model: 'bench-model',
  stream: values.stream,
  messages: [{ role: 'user', content: 'How fast is this gateway?' }],
})
const headers = { 'content-type': 'application/json', authorization: `Bearer ${secret}` }

async function load(url: string, count: number): Promise<void> {
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let index = 0; index < count / concurrency; index++) {
        const response = await fetch(url, { method: 'POST', body, headers })
        await response.text()
        if (response.status !== 200) throw new Error(`${url} answered ${response.status}`)
      }
    }),
  )
}

/** Objects per request by type, after a warm-up (so the JIT and caches are settled) and a full collection. */
async function census(base: string): Promise<Map<string, number>> {
  const url = `${base}/v1/chat/completions`
  await load(url, 2000)
  Bun.gc(true)
  const before = heapStats().objectTypeCounts
  await load(url, requests)
  const after = heapStats().objectTypeCounts
  const perRequest = new Map<string, number>()
  for (const [type, count] of Object.entries(after)) perRequest.set(type, (count - (before[type] ?? 0)) / requests)
  return perRequest
}

const raw = await census(`http://127.0.0.1:${passthrough.port}`)
const tollgate = await census(gateway.url)
console.log(
  `objects per request (${requests} requests, client included)\n${'type'.padEnd(28)} ${'tollgate'.padStart(9)} ${'passthrough'.padStart(12)}`,
)
const rows = [...tollgate].filter(([, count]) => count >= 0.5).sort((a, b) => b[1] - a[1])
for (const [type, count] of rows)
  console.log(`${type.padEnd(28)} ${count.toFixed(1).padStart(9)} ${(raw.get(type) ?? 0).toFixed(1).padStart(12)}`)
const total = (counts: Map<string, number>) => [...counts.values()].filter((count) => count > 0).reduce((sum, count) => sum + count, 0)
console.log(`${'all'.padEnd(28)} ${total(tollgate).toFixed(0).padStart(9)} ${total(raw).toFixed(0).padStart(12)}`)
await gateway.stop(1000)
process.exit(0)
