/**
 * Idle-stream census: what one open, idle stream keeps alive in the proxy's JS heap — the objects by kind, the heap
 * and the "extra memory" (native buffers the collector is told of) — counted by `heapStats()` (bun:jsc) after a
 * full collection, before and after `--streams` streams are opened and held after their first chunk. The upstream
 * runs in this process (its share is the same for both targets); the client is a child process. Pairs with
 * `bench/capacity.ts --scenario idle`, which measures the resident memory the same streams cost.
 *
 *   bun bench/idle-census.ts [tollgate|passthrough] [--streams 1000]
 */
import { heapStats } from 'bun:jsc'
import { startClient } from './long-streams.ts'
import { runWithRaisedCeiling } from './processes.ts'
import { startInProcess } from './in-process.ts'

await runWithRaisedCeiling()
const which = process.argv[2] ?? 'tollgate'
const streamsAt = process.argv.indexOf('--streams')
const info = await startInProcess(which)
const count = streamsAt === -1 ? 1000 : Number(process.argv[streamsAt + 1])
const warm = startClient({ info } as Parameters<typeof startClient>[0], 'bench-model', 50, 'hold', true)
await warm.line
warm.child.stdin.end()
await warm.child.exited
await Bun.sleep(500)
Bun.gc(true)
await Bun.sleep(100)
Bun.gc(true)
const before = heapStats()
const client = startClient({ info } as Parameters<typeof startClient>[0], 'bench-model', count, 'hold', true)
await client.line
await Bun.sleep(1000)
Bun.gc(true)
await Bun.sleep(100)
Bun.gc(true)
const after = heapStats()
console.log(
  'heap KB/stream',
  ((after.heapSize - before.heapSize) / count / 1024).toFixed(2),
  'extra KB/stream',
  ((after.extraMemorySize - before.extraMemorySize) / count / 1024).toFixed(2),
  'objects/stream',
  ((after.objectCount - before.objectCount) / count).toFixed(1),
)
const rows = Object.entries(after.objectTypeCounts)
  .map(([k, v]) => [k, (v - (before.objectTypeCounts[k] ?? 0)) / count] as const)
  .filter(([, v]) => v >= 0.5)
  .sort((a, b) => b[1] - a[1])
console.log(rows.map(([k, v]) => `${k}=${v.toFixed(1)}`).join(' '))
client.child.stdin.end()
await client.child.exited
process.exit(0)
