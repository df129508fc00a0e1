/**
 * A response body read from `parts` as the client takes it (pull: nothing is read ahead of a slow client), for
 * answers that may be large (a file's content, a batch's results): never built whole. A client that leaves ends the
 * reading.
 */
export function textStream(parts: AsyncGenerator<string>): ReadableStream<string> {
  return new ReadableStream<string>({
    async pull(controller) {
      const next = await parts.next()
      if (next.done) controller.close()
      else controller.enqueue(next.value)
    },
    async cancel() {
      await parts.return(undefined)
    },
  })
}
