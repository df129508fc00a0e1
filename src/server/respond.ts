const encoder = new TextEncoder()

export function jsonResponse(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } })
}

/**
 * Stream text chunks as they are produced. When the client goes away the stream is cancelled: `onCancel`
 * aborts the upstream at once (the generator itself may be parked on an upstream read), then the generator is
 * closed so its `finally` blocks settle the bill.
 */
export function streamResponse(chunks: AsyncIterable<string>, headers: Record<string, string>, onCancel: () => void): Response {
  const iterator = chunks[Symbol.asyncIterator]()
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await iterator.next()
        if (next.done) controller.close()
        else controller.enqueue(encoder.encode(next.value))
      } catch (error) {
        controller.error(error)
      }
    },
    async cancel() {
      onCancel()
      await iterator.return?.(undefined)
    },
  })
  return new Response(body, { headers })
}

/** Bytes already encoded (the passthrough path). */
export function rawStreamResponse(body: ReadableStream<Uint8Array>, headers: Record<string, string>): Response {
  return new Response(body, { headers })
}
