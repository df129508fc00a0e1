// The fixed-rate scenario of bench/capacity.ts: requests sent open-loop at a steady rate (each sent when due, whether
// or not the ones before it have been answered), as traffic arrives at a gateway that is not saturated. What it
// costs per request then includes whatever runs per second regardless of traffic (pollers, timers, a commit per
// request when they come one by one), which saturated runs (run.ts, compare.ts) spread over many more requests.
import { cpuMs, type Server } from './processes.ts'

export interface RateResult {
  /** Each answered request's latency, from its sending to the last byte of its answer (ms). */
  latencies: number[]
  /** The target process's CPU time over the run and the quarter second after it (deferred work), ms. */
  cpuMs: number
  errors: number
}

/** Send `rate` requests a second to `target` for `seconds`, open-loop. */
export async function runAtRate(target: Server, body: string, rate: number, seconds: number): Promise<RateResult> {
  const url = `${target.info.url}/v1/chat/completions`
  const init = {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${target.info.key ?? 'none'}` },
  }
  const latencies: number[] = []
  let errors = 0
  const send = async () => {
    const sent = performance.now()
    try {
      const response = await fetch(url, init)
      await response.arrayBuffer()
      if (response.ok) latencies.push(performance.now() - sent)
      else errors++
    } catch {
      errors++
    }
  }
  const pid = target.child.pid
  const cpuBefore = await cpuMs(pid)
  const total = Math.round(rate * seconds)
  const intervalMs = 1000 / rate
  const start = performance.now()
  const answers: Promise<void>[] = []
  for (let index = 0; index < total; ) {
    const wait = start + index * intervalMs - performance.now()
    if (wait > 0) await Bun.sleep(wait)
    // Every request now due goes out (more than one only when this process was late).
    for (const now = performance.now(); index < total && start + index * intervalMs <= now; index++) answers.push(send())
  }
  await Promise.all(answers)
  await Bun.sleep(250)
  return { latencies, cpuMs: (await cpuMs(pid)) - cpuBefore, errors }
}

/** CPU per second of a process left alone for `seconds` (ms of CPU per second): what it costs with no traffic at all. */
export async function idleCpu(target: Server, seconds: number): Promise<number> {
  const before = await cpuMs(target.child.pid)
  await Bun.sleep(seconds * 1000)
  return ((await cpuMs(target.child.pid)) - before) / seconds
}
