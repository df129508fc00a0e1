import { readFileSync } from 'node:fs'

/**
 * Resident and peak resident memory (VmRSS, VmHWM) of a process, in MB: how memory tests see what a body or a stream
 * costs. Zeros once the process has exited (a sampler may read it after a crash; the test says what went wrong).
 */
export function memoryOf(pid: number): { rss: number; peak: number } {
  let status: string
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8')
  } catch {
    return { rss: 0, peak: 0 }
  }
  const field = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) / 1024
  return { rss: field('VmRSS'), peak: field('VmHWM') }
}

/**
 * The environment for a `serve` whose memory a test reads to see what a request holds: Bun's allocator giving freed
 * memory back (~0.1 s after it is freed), as it does by default. `serve` otherwise keeps freed memory for reuse
 * (MIMALLOC_PURGE_DELAY=-1, cli/launch-environment.ts), so its resident size stays at its busiest moment whatever a
 * request held, and a 120 MB upload streamed through grew it 60-75 MB in CI: the test could no longer tell a body
 * held whole from memory the allocator kept.
 */
export function withAllocatorPurge(env: Record<string, string | undefined> = process.env): Record<string, string | undefined> {
  return { ...env, MIMALLOC_PURGE_DELAY: '100' }
}

/**
 * A process's memory once what it still holds has settled: read again every 100 ms, up to 3 s, until its resident
 * memory has grown less than `rssGrowthBelowMb` since `before`. Right after a large body the collector may not have
 * caught up yet on a loaded machine; a body held whole stays resident however long this waits.
 */
export async function settledMemory(
  pid: number,
  before: { rss: number },
  rssGrowthBelowMb: number,
): Promise<{ rss: number; peak: number }> {
  const until = Date.now() + 3000
  let after = memoryOf(pid)
  while (after.rss - before.rss >= rssGrowthBelowMb && Date.now() < until) {
    await Bun.sleep(100)
    after = memoryOf(pid)
  }
  return after
}
