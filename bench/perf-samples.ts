/**
 * `perf script -F comm,tid,ip,sym,dso` output counted for kernel-profile.ts: each sample is a header line (thread
 * name and id) and its stack, innermost frame first, with a blank line after it. A sample goes under the first of:
 * the system call its stack passes through (`__x64_sys_<name>`), a page fault, an interrupt; else its innermost
 * frame's place — JIT-compiled JS, Bun's binary (the runtime, JavaScriptCore, SQLite: stripped, so unnamed), libc,
 * the kernel.
 */

export interface ThreadSamples {
  name: string
  main: boolean
  total: number
  kinds: Map<string, number>
}

export function countSamples(script: string, mainThread: number): ThreadSamples[] {
  const threads = new Map<string, ThreadSamples>()
  for (const block of script.split('\n\n')) {
    const lines = block.split('\n').filter((line) => line.trim() !== '')
    if (lines.length === 0) continue
    const [name = '?', tid = '0'] = lines[0]!.trim().split(/\s+/)
    const main = Number(tid) === mainThread
    // Bun names its helpers once each (mi-scavenger, HTTP Client…), JSC's pool several times: a name is a thread kind.
    const key = main ? 'main' : name
    let thread = threads.get(key)
    if (!thread) threads.set(key, (thread = { name: main ? `${name} (main)` : name, main, total: 0, kinds: new Map() }))
    thread.total++
    const kind = kindOf(lines.slice(1))
    thread.kinds.set(kind, (thread.kinds.get(kind) ?? 0) + 1)
  }
  return [...threads.values()].sort((a, b) => Number(b.main) - Number(a.main) || b.total - a.total)
}

function kindOf(frames: string[]): string {
  for (const frame of frames) {
    const call = /__x64_sys_(\w+)/.exec(frame)
    if (call) return `syscall ${call[1]}`
    if (frame.includes('asm_exc_page_fault')) return 'page fault'
    if (frame.includes('asm_sysvec') || frame.includes('asm_common_interrupt')) return 'interrupt'
  }
  const innermost = frames[0] ?? ''
  if (innermost.includes('[kernel')) return 'kernel, other'
  if (innermost.includes('JIT') || innermost.includes('/tmp/perf-')) return 'JIT-compiled JS'
  if (innermost.includes('libc')) return 'libc'
  if (innermost.includes('bun')) return 'Bun native (runtime, JSC, SQLite)'
  return 'other'
}

/** Each thread's CPU per unit (sampling at `frequency` Hz), its busiest kinds under it; the main thread's in full. */
export function printCounts(threads: ThreadSamples[], frequency: number, units: number, unit: string): void {
  const perUnit = (samples: number) => ((samples / frequency) * 1e6) / Math.max(1, units)
  console.log(`on-CPU µs per ${unit} (${units}), by thread and by what it was doing (perf, ${frequency} Hz)`)
  for (const thread of threads) {
    console.log(`  ${thread.name.padEnd(36)} ${perUnit(thread.total).toFixed(1).padStart(8)}`)
    const kinds = [...thread.kinds].sort((a, b) => b[1] - a[1])
    for (const [kind, samples] of thread.main ? kinds : kinds.slice(0, 3)) {
      const share = ((100 * samples) / thread.total).toFixed(1)
      console.log(`      ${kind.padEnd(32)} ${perUnit(samples).toFixed(1).padStart(8)}  ${share.padStart(5)}%`)
    }
  }
}
