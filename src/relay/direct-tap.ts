import { directStream } from '../core/direct-stream.ts'
import type { StreamEnding } from './stream-ending.ts'
import type { StreamTap } from './types.ts'

/**
 * What the relay's stream taps (passthrough-tap.ts, byte-tap.ts) share: each is its own Bun direct-stream source —
 * `pull` and `cancel` are its methods — so an open stream keeps no source object and closures of its own.
 * `toStream` hands the tap to Bun with how the stream's end is told (`ending`, once, however it ends: it aborts the
 * upstream and settles) and the write deadline: nothing more is read from the upstream while the client's socket is
 * full, and a client that takes nothing for `writeIdleMs` is treated as gone (499, billed for what was produced).
 */
export abstract class DirectTap implements StreamTap {
  readonly type = 'direct'
  protected ending!: StreamEnding
  protected writeIdleMs = 0
  /** The client cancelled: nothing more is sent (a read may still be running, for a request that reads on). */
  protected leaving = false

  toStream(ending: StreamEnding, writeIdleMs: number): ReadableStream<Uint8Array> {
    this.ending = ending
    this.writeIdleMs = writeIdleMs
    return directStream(this)
  }

  /** The direct stream's one pull: the answer written as it comes, its end held back until the bill is durable. */
  abstract pull(controller: ReadableStreamDirectController): Promise<void>
  /** The client went away (the direct stream was cancelled). */
  abstract cancel(): Promise<void>
  abstract readOn(): Promise<void>
}
