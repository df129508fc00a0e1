/**
 * A real HTTP server on loopback standing in for an upstream provider. Tests give it a handler and read back
 * what it received (`requests`) and whether clients hung up (`aborted`).
 */
export interface RecordedRequest {
  method: string
  path: string
  headers: Record<string, string>
  body: any
  rawBody: string
}

export interface TestUpstream {
  url: string
  requests: RecordedRequest[]
  /** Requests whose connection was closed by the gateway before the answer ended. */
  aborted: number
  stop(): Promise<void>
}

export type UpstreamHandler = (request: RecordedRequest, raw: Request) => Response | Promise<Response>

export function startUpstream(handler: UpstreamHandler): TestUpstream {
  const upstream: TestUpstream = {
    url: '',
    requests: [],
    aborted: 0,
    async stop() {
      server.stop(true)
    },
  }
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    idleTimeout: 60,
    async fetch(raw) {
      const url = new URL(raw.url)
      const rawBody = await raw.text()
      let body: unknown = undefined
      try {
        body = rawBody ? JSON.parse(rawBody) : undefined
      } catch {}
      const recorded: RecordedRequest = {
        method: raw.method,
        path: url.pathname + url.search,
        headers: Object.fromEntries(raw.headers),
        body,
        rawBody,
      }
      upstream.requests.push(recorded)
      raw.signal.addEventListener('abort', () => upstream.aborted++, { once: true })
      return handler(recorded, raw)
    },
  })
  upstream.url = `http://127.0.0.1:${server.port}`
  return upstream
}

const encoder = new TextEncoder()

/** An SSE body that sends `events` (already framed text) with an optional pause between them. */
export function sseBody(events: string[], delayMs = 0, signal?: AbortSignal): ReadableStream<Uint8Array> {
  return new ReadableStream({
    async start(controller) {
      for (const event of events) {
        if (signal?.aborted) return
        controller.enqueue(encoder.encode(event))
        if (delayMs) await Bun.sleep(delayMs)
      }
      controller.close()
    },
  })
}

export function sseResponse(events: string[], delayMs = 0): Response {
  return new Response(sseBody(events, delayMs), { headers: { 'content-type': 'text/event-stream' } })
}

export function jsonReply(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } })
}
