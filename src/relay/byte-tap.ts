import type { BodyChunks } from '../core/provider.ts'
import { drained, sendNow } from '../core/direct-stream.ts'
import { DirectTap } from './direct-tap.ts'
import { clientClosed, toGatewayError } from '../core/errors.ts'
import type { AnswerEvent } from '../core/operation.ts'
import type { Meter } from './meter.ts'
import type { AbortScope } from './abort-scope.ts'
import { outcomeOf } from './outcome.ts'

/** One chunk of a byte stream, as a meter sees it (`Meter.observe`): the meter reads what it needs from the bytes. */
export interface BytesEvent extends AnswerEvent {
  readonly type: 'bytes'
  readonly bytes: Uint8Array
}

/**
 * An upstream body relayed to the client chunk by chunk as it comes, unbuffered (audio, and any answer that is not
 * events the gateway re-frames): every chunk is shown to the meter, then written at once. `prime()` reads until the
 * first bytes, so a failure before any byte (a cut, a stall) is thrown and may be retried elsewhere. The body's end
 * is held back until the request is settled: a client never holds a complete answer whose bill a crash could lose.
 */
export class ByteTap extends DirectTap {
  private pending: Uint8Array | undefined
  private ended = false

  constructor(
    private readonly chunks: BodyChunks,
    private readonly meter: Meter,
    private readonly scope: AbortScope,
  ) {
    super()
  }

  async prime(): Promise<void> {
    try {
      while (this.pending === undefined && !this.ended) this.receive(this.chunks.took(await this.chunks.read()))
    } catch (error) {
      const failure = this.chunks.failure(error)
      this.chunks.cancel()
      throw failure
    }
  }

  /** The direct stream's one pull (direct-tap.ts): each chunk written as it comes. */
  async pull(controller: ReadableStreamDirectController): Promise<void> {
    const { ending } = this
    try {
      while (true) {
        while (this.pending === undefined && !this.ended) this.receive(this.chunks.took(await this.chunks.read()))
        if (ending.done || this.leaving) return
        if (this.pending === undefined) break
        const sent = sendNow(controller, this.pending)
        this.pending = undefined
        if (sent && !(await drained(sent, this.writeIdleMs))) {
          this.leaving = true
          await ending.finish({ status: 499, errorType: 'client_closed' })
          this.chunks.cancel()
          return controller.close(clientClosed())
        }
      }
      await ending.finish({ status: 200 })
      controller.close()
    } catch (error) {
      if (ending.done || this.leaving) return
      const failure = toGatewayError(this.chunks.failure(error))
      // Audio has no error event: the body is cut, which a client's decoder and the missing chunk terminator show.
      controller.close(failure)
      await ending.finish(outcomeOf(failure))
    }
  }

  async cancel(): Promise<void> {
    this.leaving = true
    if (this.scope.readsOn) await this.readOn()
    await this.ending.finish({ status: 499, errorType: 'client_closed' })
    this.chunks.cancel()
  }

  async readOn(): Promise<void> {
    try {
      while (!this.ended) {
        this.receive(this.chunks.took(await this.chunks.read()))
        this.pending = undefined
      }
    } catch {
      // The upstream failed or a timer ended the attempt: the bill is what was seen.
    }
  }

  private receive(next: Bun.ReadableStreamDefaultReadResult<Uint8Array>): void {
    if (next.done) {
      this.ended = true
      this.meter.ended = true
      return
    }
    if (next.value.byteLength === 0) return
    this.meter.observe({ type: 'bytes', bytes: next.value } as BytesEvent)
    this.pending = next.value
  }
}
