import type { BodyChunks } from '../core/provider.ts'

/**
 * A body the mock made whole, handed out a chunk at a time with a turn of the event loop between chunks, as a network
 * body comes; an aborted attempt's next read fails with the abort's reason, as a fetch body's would.
 */
export function listedChunks(chunks: readonly Uint8Array[], attempt: AbortController): BodyChunks {
  let next = 0
  return {
    async read() {
      await Bun.sleep(0)
      if (attempt.signal.aborted) throw attempt.signal.reason
      return next < chunks.length ? { done: false, value: chunks[next++]! } : { done: true, value: undefined }
    },
    took: (result) => result,
    failure: (error) => error,
    cancel() {
      next = chunks.length
    },
  }
}
