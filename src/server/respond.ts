import type { DirectUnderlyingSource } from 'bun'

export function jsonResponse(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } })
}

/**
 * Stream text chunks as they are produced. When the client goes away the stream is cancelled: `onCancel`
 * aborts the upstream at once (the generator itself may be parked on an upstream read), then the generator is
 * closed so its `finally` blocks settle the bill.
 *
 * A Bun "direct" stream (see RawStreamTap.toStream): Bun.serve calls `pull` once and each chunk is written and
 * flushed as it comes, without a default stream's queue and promise per chunk.
 */
export function streamResponse(chunks: AsyncIterable<string>, headers: Record<string, string>, onCancel: () => void): Response {
  const iterator = chunks[Symbol.asyncIterator]()
  let cancelled = false
  const source: DirectUnderlyingSource<Uint8Array> = {
    type: 'direct',
    async pull(controller) {
      try {
        while (true) {
          const next = await iterator.next()
          if (next.done || cancelled) break
          controller.write(next.value) // a string: Bun encodes it on the way out
          const flushed = controller.flush()
          if (flushed instanceof Promise) await flushed // the client reads slower than the upstream writes
        }
        if (!cancelled) controller.close()
      } catch (error) {
        if (!cancelled) controller.close(error as Error)
      }
    },
    async cancel() {
      cancelled = true
      onCancel()
      await iterator.return?.(undefined)
    },
  }
  return new Response(new ReadableStream(source as unknown as UnderlyingDefaultSource<Uint8Array>), { headers })
}

/** Bytes already encoded (the passthrough path). */
export function rawStreamResponse(body: ReadableStream<Uint8Array>, headers: Record<string, string>): Response {
  return new Response(body, { headers })
}
