/**
 * The probe's own thread (latency-probe.ts): it sends its requests on its own event loop, so a stalled gateway in the
 * test's thread is measured as the delay it is, not hidden because the probe could not even send.
 */
interface Target {
  name: string
  url: string
  init?: RequestInit
  /** The answer must carry this text (another tenant's chat is answered, not refused). */
  expect?: string
}

declare const self: Worker
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

self.onmessage = async (event: MessageEvent) => {
  const message = event.data as { start: Target[]; intervalMs: number } | { stop: true }
  if ('start' in message) {
    const probes = message.start.map((target) => probe(target, message.intervalMs))
    self.postMessage({ started: true })
    await Promise.all(probes)
    self.postMessage({ samples, failures })
  } else running = false
}
