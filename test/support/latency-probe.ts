/**
 * Latency as another tenant sees it while the gateway works: requests sent from a process of their own, whose event
 * loop a stalled gateway (in the test's own thread, or a binary) cannot hold, so a stall shows as the delay it is.
 * Not a Worker: a Worker's fetch runs on its process's one HTTP client thread, behind the test's own traffic (the
 * hostile-binary test's 150 MB bodies among it), which blurred a 50 ms bound into the test's load. Used by the tests
 * that hold batch and upload work to ISSUE 22's bound (p99 of /healthz and another tenant's requests within 50 ms).
 */
export interface ProbeTarget {
  name: string
  url: string
  init?: RequestInit
  /** Text the answer must carry (else it is counted as a failure). */
  expect?: string
}

export interface ProbeReport {
  samples: Record<string, number[]>
  failures: string[]
}

export interface LatencyProbe {
  stop(): Promise<ProbeReport>
}

export async function startLatencyProbe(targets: ProbeTarget[], intervalMs = 10): Promise<LatencyProbe> {
  let answered: ((message: unknown) => void) | undefined
  const child = Bun.spawn([process.execPath, new URL('./latency-probe-process.ts', import.meta.url).pathname], {
    stdio: ['ignore', 'inherit', 'inherit'],
    ipc: (message) => answered?.(message),
  })
  const next = () => new Promise<unknown>((resolve) => (answered = resolve))
  const started = next()
  child.send({ start: targets, intervalMs })
  await started
  return {
    async stop() {
      const report = next()
      child.send({ stop: true })
      const result = (await report) as ProbeReport
      child.kill()
      return result
    },
  }
}

/** The value below which `share` of the samples fall (0.99: the p99). */
export function percentile(values: number[], share: number): number {
  if (values.length === 0) return Number.NaN
  return [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * share))]!
}

/** One line for the log: count, median, p99 and worst, in ms. */
export function describeLatency(name: string, values: number[]): string {
  return `${name}: ${values.length} probes, median ${percentile(values, 0.5).toFixed(1)} ms, p99 ${percentile(values, 0.99).toFixed(1)} ms, slowest ${Math.max(...values).toFixed(1)} ms`
}
