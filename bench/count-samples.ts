/**
 * A .cpuprofile's samples counted: by function (self), by file, and for the busiest native functions, the JS that
 * called them. Bun's profiler samples wall time, so on a thread that is never idle (a saturated run) the counts are
 * its CPU; on an idle one, waiting shows as `(anonymous)` at the root.
 *
 *   PROFILE_FORMAT=json bun bench/profile.ts --scenario saturated   (prints the .cpuprofile's path)
 *   bun bench/count-samples.ts /tmp/tollgate-profile/CPU.….cpuprofile [--top 40] [--callers 6]
 */
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'

interface CallFrame {
  functionName: string
  url: string
  lineNumber: number
}
interface Profile {
  nodes: { id: number; callFrame: CallFrame; children?: number[] }[]
  samples: number[]
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '40' }, callers: { type: 'string', default: '6' } },
})
if (!positionals[0]) throw new Error('usage: bun bench/count-samples.ts FILE.cpuprofile [--top 40] [--callers 6]')
const profile = JSON.parse(readFileSync(positionals[0], 'utf8')) as Profile
const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]))
const parents = new Map<number, number>()
for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id)
const root = process.cwd()
const where = (frame: CallFrame) =>
  frame.url ? `${frame.url.replace('file://', '').replace(`${root}/`, '')}:${frame.lineNumber}` : 'native'
const nameOf = (frame: CallFrame) => `${frame.functionName || '(anonymous)'} ${where(frame)}`

const count = (key: (frame: CallFrame, id: number) => string | undefined) => {
  const counts = new Map<string, number>()
  for (const id of profile.samples) {
    const name = key(frames.get(id)!, id)
    if (name !== undefined) counts.set(name, (counts.get(name) ?? 0) + 1)
  }
  return [...counts].sort((a, b) => b[1] - a[1])
}
const total = profile.samples.length
const share = (samples: number) => `${((100 * samples) / total).toFixed(1).padStart(5)}%`

console.log(`${total} samples\n\nby function (self)`)
const byFunction = count((frame) => nameOf(frame))
for (const [name, samples] of byFunction.slice(0, Number(values.top))) console.log(`${share(samples)}  ${name}`)

console.log('\nby file (self)')
const fileOf = (frame: CallFrame) =>
  frame.url
    ? frame.url
        .replace('file://', '')
        .replace(`${root}/`, '')
        .replace(/node_modules\/((@[^/]+\/)?[^/]+).*/, '$1')
    : 'native'
for (const [name, samples] of count(fileOf).slice(0, 25)) console.log(`${share(samples)}  ${name}`)

// Who calls the busiest native functions: three frames up, the JS that asked for the work.
const natives = byFunction.filter(([name]) => name.endsWith(' native') && !name.startsWith('(anonymous)'))
for (const [name] of natives.slice(0, Number(values.callers))) {
  console.log(`\n${name.replace(' native', '')} (native), called from`)
  const chains = count((frame, id) => {
    if (nameOf(frame) !== name) return undefined
    const chain: string[] = []
    for (let at = parents.get(id); at !== undefined && chain.length < 3; at = parents.get(at)) chain.push(nameOf(frames.get(at)!))
    return chain.join(' < ')
  })
  for (const [chain, samples] of chains.slice(0, 4)) console.log(`${share(samples)}  ${chain}`)
}
