// What the benchmarks need of the processes they measure: start one of bench/'s servers, and read its CPU time and
// memory from /proc (Linux only: NaN elsewhere).
import type { Subprocess } from 'bun'
import { readdirSync } from 'node:fs'

/**
 * Every process of a benchmark runs with Bun's fetch ceiling raised: the trivial proxy as the issue measured it, and
 * Tollgate as `serve` starts it (limits.upstream_connections; bench/tollgate.ts runs the gateway without `serve`).
 */
export const raisedCeiling = { BUN_CONFIG_MAX_HTTP_REQUESTS: '65535' }

/**
 * For a benchmark that runs the proxy in its own process (idle-census.ts, idle-snapshot.ts): Bun reads the ceiling
 * once, at the process's start, so a process started without it runs this same script again with it, and exits with
 * that run's code. Without it only 256 streams would open; the rest would wait in fetch's queue and be counted as
 * if they were open streams (their suspended calls, their head timers).
 */
export async function runWithRaisedCeiling(): Promise<void> {
  if (process.env.BUN_CONFIG_MAX_HTTP_REQUESTS === raisedCeiling.BUN_CONFIG_MAX_HTTP_REQUESTS) return
  const run = Bun.spawn([process.execPath, ...process.argv.slice(1)], {
    env: { ...process.env, ...raisedCeiling },
    stdio: ['inherit', 'inherit', 'inherit'],
  })
  process.exit(await run.exited)
}

export interface Server {
  child: Subprocess<'ignore', 'pipe', 'inherit' | 'ignore'>
  info: { url: string; key?: string; keys?: string[] }
}

/** Start `bun script` (in `directory`, default bench/) and read the JSON line it prints once listening. */
export async function spawnServer(
  script: string,
  env: Record<string, string> = {},
  directory = import.meta.dir,
  stderr: 'inherit' | 'ignore' = 'inherit',
): Promise<Server> {
  const child = Bun.spawn(['bun', script], { cwd: directory, env: { ...process.env, ...raisedCeiling, ...env }, stdout: 'pipe', stderr })
  const reader = child.stdout.getReader()
  const { value } = await reader.read()
  reader.releaseLock()
  return { child, info: JSON.parse(new TextDecoder().decode(value).split('\n')[0]!) }
}

/**
 * User + system CPU time so far, in ms: of the whole process, or with `thread` of that thread alone (the main JS
 * thread's id is the process id). USER_HZ is 100: a reading is good to 10 ms.
 */
export async function cpuMs(pid: number, thread?: number): Promise<number> {
  try {
    const stat = await Bun.file(thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`).text()
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) * 10
  } catch {
    return Number.NaN
  }
}

/** CPU time so far of each of a process's threads, keyed "id name" (ms; threads that ended are gone). */
export async function threadsCpuMs(pid: number): Promise<Map<string, number>> {
  const threads = new Map<string, number>()
  for (const thread of readdirSync(`/proc/${pid}/task`)) {
    const name = await Bun.file(`/proc/${pid}/task/${thread}/comm`)
      .text()
      .catch(() => '?')
    threads.set(`${thread} ${name.trim()}`, await cpuMs(pid, Number(thread)))
  }
  return threads
}

/** Resident memory now, in KB. */
export async function rssKb(pid: number): Promise<number> {
  try {
    const status = await Bun.file(`/proc/${pid}/status`).text()
    return Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? Number.NaN)
  } catch {
    return Number.NaN
  }
}

/** Sample a process's resident memory every `everyMs` until `stop()`, which returns the highest reading (KB). */
export function watchPeakRss(pid: number, everyMs = 100): { stop(): Promise<number> } {
  let peak = 0
  let running = true
  const sampling = (async () => {
    while (running) {
      peak = Math.max(peak, await rssKb(pid))
      await Bun.sleep(everyMs)
    }
  })()
  return {
    async stop() {
      running = false
      await sampling
      return Math.max(peak, await rssKb(pid))
    },
  }
}

/** The value at `fraction` (0.5: the median) of `values`. */
export function percentile(values: number[], fraction: number): number {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))]!
}

export const median = (values: number[]) => percentile(values, 0.5)
