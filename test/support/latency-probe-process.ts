/**
 * The probe's own process (latency-probe.ts): it sends its requests on its own event loop and its own HTTP client
 * thread, so a stalled gateway is measured as the delay it is — not hidden because the probe could not even send, and
 * not blurred by the test's own traffic queued in the same fetch thread (a Worker shares its process's).
 */
interface Target {
  name: string
  url: string
  init?: RequestInit
  /** The answer must carry this text (another tenant's chat is answered, not refused). */
  expect?: string
}

export {}
let running = true
const samples: Record<string, number[]> = {}
const failures: string[] = []

async function probe(target: Target, intervalMs: number): Promise<void> {
  const list: number[] = (samples[target.name] = [])
  while (running) {
    const asked = performance.now()
    try {
      const response = await fetch(target.url, target.init)
      const text = await response.text()
      if (response.status !== 200 || (target.expect && !text.includes(target.expect)))
        failures.push(`${target.name}: ${response.status} ${text.slice(0, 200)}`)
    } catch (error) {
      failures.push(`${target.name}: ${String(error)}`)
    }
    list.push(performance.now() - asked)
    await Bun.sleep(Math.max(0, intervalMs - (performance.now() - asked)))
  }
}

process.on('message', async (message: { start: Target[]; intervalMs: number } | { stop: true }) => {
  if ('start' in message) {
    const probes = message.start.map((target) => probe(target, message.intervalMs))
    process.send!({ started: true })
    await Promise.all(probes)
    process.send!({ samples, failures })
    process.disconnect?.()
  } else running = false
})
