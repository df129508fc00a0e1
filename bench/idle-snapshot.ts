/**
 * Who keeps what, per idle open stream: opens two batches of `--streams` streams held after their first chunk (as
 * idle-census.ts does), takes a JSC heap snapshot after each, and prints, for each kind of object the streams added, how many
 * per stream and what refers to them (the referrer's kind and the property or variable). Where
 * idle-census.ts counts, this says which field, closure scope or promise keeps each object alive. The upstream runs
 * in this process (its share is the same for both targets); compare with `passthrough` to see it.
 *
 *   bun bench/idle-snapshot.ts [tollgate|passthrough] [--streams 200] [--kinds Object,JSLexicalEnvironment,…]
 */
import { startClient } from './long-streams.ts'
import { runWithRaisedCeiling } from './processes.ts'
import { startInProcess } from './in-process.ts'

await runWithRaisedCeiling()

const which = process.argv[2] ?? 'tollgate'
const option = (name: string, fallback: string) => {
  const at = process.argv.indexOf(name)
  return at === -1 ? fallback : process.argv[at + 1]!
}
const info = await startInProcess(which)
const count = Number(option('--streams', '200'))
const server = { info } as Parameters<typeof startClient>[0]

/** The parts of Bun's snapshot read here (JSC's "Inspector" format: flat arrays, 4 numbers a node or an edge). */
interface Snapshot {
  nodes: number[]
  nodeClassNames: string[]
  edges: number[]
  edgeTypes: string[]
  edgeNames: string[]
}

// Two batches of held streams: the first loads whatever the path loads lazily (modules, caches, JIT), so that what
// the second adds is the streams' own.
const first = startClient(server, 'bench-model', count, 'hold', true)
await first.line
await Bun.sleep(1000)
Bun.gc(true)
const before = Bun.generateHeapSnapshot() as unknown as Snapshot
const second = startClient(server, 'bench-model', count, 'hold', true)
await second.line
await Bun.sleep(1000)
Bun.gc(true)
const after = Bun.generateHeapSnapshot() as unknown as Snapshot
for (const client of [first, second]) {
  client.child.stdin.end()
  await client.child.exited
}

// Node ids are not kept from one snapshot to the next: each snapshot is counted on its own (objects by kind, and by
// kind and referrers) and the second batch's share is the difference.
interface Census {
  kinds: Map<string, { count: number; bytes: number }>
  /** `kind ← referrers` → how many objects of that kind have exactly those referrers. */
  keptBy: Map<string, number>
}

function census(snapshot: Snapshot): Census {
  const kindOf = new Map<number, string>()
  const kinds = new Map<string, { count: number; bytes: number }>()
  for (let index = 0; index < snapshot.nodes.length; index += 4) {
    const kind = snapshot.nodeClassNames[snapshot.nodes[index + 2]!]!
    kindOf.set(snapshot.nodes[index]!, kind)
    const entry = kinds.get(kind) ?? { count: 0, bytes: 0 }
    entry.count++
    entry.bytes += snapshot.nodes[index + 1]!
    kinds.set(kind, entry)
  }
  const referrers = new Map<number, Set<string>>()
  for (let index = 0; index < snapshot.edges.length; index += 4) {
    const [from, to, type, name] = snapshot.edges.slice(index, index + 4) as [number, number, number, number]
    const edgeType = snapshot.edgeTypes[type]
    const label = edgeType === 'Property' || edgeType === 'Variable' ? `.${snapshot.edgeNames[name]}` : edgeType === 'Index' ? '[]' : ''
    let set = referrers.get(to)
    if (!set) referrers.set(to, (set = new Set()))
    set.add(`${kindOf.get(from)}${label}`)
  }
  const keptBy = new Map<string, number>()
  for (const [id, kind] of kindOf) {
    const key = `${kind} ← ${[...(referrers.get(id) ?? [])].sort().join(' + ') || '(nothing)'}`
    keptBy.set(key, (keptBy.get(key) ?? 0) + 1)
  }
  return { kinds, keptBy }
}

const was = census(before)
const is = census(after)
const rows = [...is.kinds].map(([kind, { count: total, bytes }]) => {
  const old = was.kinds.get(kind) ?? { count: 0, bytes: 0 }
  return { kind, perStream: (total - old.count) / count, bytes: (bytes - old.bytes) / count }
})
rows.sort((a, b) => b.perStream - a.perStream)
const shown = rows.filter((row) => Math.abs(row.perStream) >= 0.5)
console.log(`${which}: ${count} more held streams; per stream: kind, objects, bytes (as the snapshot sizes them)`)
for (const row of shown) console.log(`  ${row.kind.padEnd(36)} ${row.perStream.toFixed(1).padStart(6)} ${row.bytes.toFixed(0).padStart(8)}`)
const total = shown.reduce((sum, row) => sum + row.perStream, 0)
console.log(`  ${'all kinds shown'.padEnd(36)} ${total.toFixed(1).padStart(6)}`)
const kinds = new Set(option('--kinds', 'Object,JSLexicalEnvironment,Function,AsyncFunction,Array,Promise').split(','))
const kept = [...is.keptBy]
  .map(([key, total]) => [key, (total - (was.keptBy.get(key) ?? 0)) / count] as const)
  .filter(([key, perStream]) => perStream >= 0.5 && kinds.has(key.slice(0, key.indexOf(' ← '))))
  .sort((a, b) => a[0].localeCompare(b[0]) || b[1] - a[1])
console.log('\nkept by (per stream):')
for (const [key, perStream] of kept) console.log(`  ${perStream.toFixed(1).padStart(5)}  ${key}`)
process.exit(0)
