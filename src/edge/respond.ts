import type { Server } from 'bun'
import { directStream, drained, sendNow } from '../core/direct-stream.ts'

const encoder = new TextEncoder()

export function jsonResponse(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } })
}

/** Who hears how a streamed answer ends early: one object per stream (its methods are not closures). */
export interface StreamWatch {
  /** The client went away: abort the upstream at once. */
  cancel(): void
  /** Producing the chunks threw (an encoder's bug): it must be logged, the client only sees the stream cut. */
  fail(error: unknown): void
  /** limits.write_idle_ms: a client that takes nothing for this long is treated as gone. */
  readonly writeIdleMs: number
}

/**
 * Stream text chunks as they are produced. When the client goes away the stream is cancelled: `watch.cancel`
 * aborts the upstream at once (the generator itself may be parked on an upstream read), then the generator is
 * closed so its `finally` blocks settle the bill.
 *
 * A direct stream (direct-stream.ts): each chunk is written and flushed as it comes.
 */
export function streamResponse(chunks: AsyncIterable<string>, headers: Record<string, string>, watch: StreamWatch): Response {
  const iterator = chunks[Symbol.asyncIterator]()
  let cancelled = false
  const body = directStream({
    type: 'direct',
    async pull(controller) {
      try {
        while (true) {
          const next = await iterator.next()
          if (next.done || cancelled) break
          // Encoded here rather than by Bun: a string written to a direct stream costs more than TextEncoder's bytes
          // (translated route, 600 streams x 150 chunks: 35.1 -> 34.3 us a chunk, A/B median of 4, 2026-11-27).
          const sent = sendNow(controller, encoder.encode(next.value))
          // No extra tick unless the client is slow: then nothing more is produced until it has taken this, and one
          // that takes nothing for the write deadline has gone (the upstream is aborted, the bill settled as a 499).
          if (sent && !(await drained(sent, watch.writeIdleMs))) {
            if (cancelled) return
            cancelled = true
            watch.cancel()
            await iterator.return?.(undefined)
            controller.close(new Error('client took nothing within the write deadline'))
            return
          }
        }
        if (!cancelled) controller.close()
      } catch (error) {
        if (cancelled) return
        watch.fail(error)
        controller.close(error as Error)
      }
    },
    async cancel() {
      cancelled = true
      watch.cancel()
      await iterator.return?.(undefined)
    },
  })
  return new Response(body, { headers })
}

/**
 * A whole (non-streamed) answer, under the write deadline. A `new Response(string)` gives no hook on a client that
 * never reads it: Bun would hold the unsent rest until its idle timeout (255 s). So the connection's own idle timeout
 * is cut to `writeIdleMs` for the writing: a client that takes none of the answer for that long has its connection
 * dropped by Bun, and the native string response (its Content-Length, no stream) is kept. What the answer holds
 * meanwhile is bounded by limits.upstream_body_bytes (the largest upstream body read).
 */
export function wholeResponse(
  body: string,
  headers: Record<string, string>,
  request: Request,
  server: Server<unknown> | undefined,
  writeIdleMs: number,
): Response {
  endHandling(server, request, writeIdleMs)
  return new Response(body, { headers })
}

/**
 * The answer is made (or, for a stream, over): cut the connection's idle timeout from Bun's long one (255 s, for
 * generations and streams that are silent for minutes) to the write deadline. It then bounds the rest of the
 * writing, the keep-alive wait, and the next request's headers: Bun restarts the timer only once a request's headers
 * are complete, not for header bytes trickling in, so a client trickling its next request is cut here. (A new
 * connection's first headers get Bun's own 10 s.) Bun counts the timeout in ticks of 4 s (uSockets' timer), rounding
 * up, and a timeout of one tick ends at the *next* tick, which can come at once: a connection answered a moment ago
 * was then closed as idle just as its client sent the next request on it from its pool (a "Connection error." in
 * test/hostile-binary with write_idle_ms 2 s). So the timeout is never under two ticks (`minimumIdleSeconds`): an
 * answered connection stays open at least 4 s, and a cut comes 4–8 s after the deadline at most.
 */
export function endHandling(server: Server<unknown> | undefined, request: Request, writeIdleMs: number): void {
  server?.timeout(request, Math.min(255, Math.max(minimumIdleSeconds, Math.ceil(writeIdleMs / 1000))))
}

/** Two of uSockets' 4-second ticks (5 s rounds up to 2): the least time an answered connection is kept open. */
const minimumIdleSeconds = 5

/** Bytes already encoded (the passthrough path). */
export function rawStreamResponse(body: ReadableStream<Uint8Array>, headers: Record<string, string>): Response {
  return new Response(body, { headers })
}
