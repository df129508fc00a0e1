/**
 * Many streamed chat completions at once, from a process of its own started with Bun's fetch ceiling raised (the
 * benchmark's own process could run only 256 at once). Its argument is a JSON object:
 *   { url, key, model, count, content, hold }
 * Every stream is opened at once; each one's time to its first body bytes is recorded. Without `hold`, every stream
 * is read to its end, then one JSON line is printed: { firstChunkMs, bytes, failed }. With `hold`, the line is
 * printed once every stream has begun (or after 60 s), then the streams stay open, unread, until stdin closes.
 */
const { url, key, model, count, content, hold } = JSON.parse(process.argv[2]!) as {
  url: string
  key?: string
  model: string
  count: number
  content: string
  hold?: boolean
}
const body = JSON.stringify({ model, stream: true, messages: [{ role: 'user', content }] })
const headers = { 'content-type': 'application/json', authorization: `Bearer ${key ?? 'none'}` }
const firstChunkMs: number[] = []
const errors = new Set<string>()
let failed = 0
let bytes = 0
const controllers: AbortController[] = []
let begun: () => void
const allBegun = new Promise<void>((resolve) => (begun = resolve))

async function openStream(): Promise<void> {
  const controller = new AbortController()
  controllers.push(controller)
  const started = performance.now()
  try {
    const response = await fetch(`${url}/v1/chat/completions`, { method: 'POST', body, headers, signal: controller.signal })
    if (!response.ok) throw new Error(`status ${response.status}: ${(await response.text()).slice(0, 200)}`)
    const reader = response.body!.getReader()
    let first = true
    while (true) {
      const { done, value } = await reader.read()
      if (done) break
      bytes += value.byteLength
      if (first) {
        first = false
        firstChunkMs.push(performance.now() - started)
        if (firstChunkMs.length === count) begun()
        if (hold) return
      }
    }
  } catch (error) {
    if (controller.signal.aborted) return
    failed++
    errors.add((error as Error).message)
  }
}

const streams = Array.from({ length: count }, () => openStream())
if (hold) {
  await Promise.race([allBegun, Bun.sleep(60_000)])
  console.log(JSON.stringify({ firstChunkMs, failed, errors: [...errors].slice(0, 5) }))
  for await (const _ of Bun.stdin.stream()) {
    // Held until the benchmark closes stdin.
  }
  for (const controller of controllers) controller.abort()
  process.exit(0)
}
await Promise.all(streams)
console.log(JSON.stringify({ firstChunkMs, bytes, failed, errors: [...errors].slice(0, 5) }))
export {}
