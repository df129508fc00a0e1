import type { BodyChunks, ForwardedStream } from '../core/provider.ts'
import { drained, sendNow } from '../core/direct-stream.ts'
import { clientClosed, GatewayError, toGatewayError } from '../core/errors.ts'
import type { Meter } from './meter.ts'
import type { AbortScope } from './abort-scope.ts'
import { outcomeOf } from './outcome.ts'
import type { StreamEnding } from './stream-ending.ts'
import type { AnswerCodec, Outcome } from './types.ts'
import { PassthroughEvents } from './passthrough-events.ts'

const encoder = new TextEncoder()
const bodyDone: Bun.ReadableStreamDefaultReadResult<Uint8Array> = { done: true, value: undefined }

/**
 * The passthrough stream: upstream bytes go to the client as they arrive, while a parser on the side feeds the
 * provider's own stream decoder so the meter sees the same IR events as on the translated path.
 * Bytes go as they came, an event once it is complete. A read with an event `dropRawEvent` leaves out (the usage chunk
 * a client did not ask for, at the very end) goes without that event's bytes, and one with an upstream error event
 * without it and what follows, replaced by the protocol's own, scrubbed: cut out of the read when its events are
 * written as the protocol's own writer would (the usual read), else the read's events written anew as before.
 *
 * `prime()` reads until the answer has begun, keeping the bytes: a failure before that point (an error event, a cut,
 * a stall) is thrown so the relay can retry elsewhere, and nothing has reached the client yet.
 */
export class PassthroughTap extends PassthroughEvents {
  /** What prime() may hold back before the answer begins (limits.upstream_body_bytes). */
  private readonly maxHeldBytes: number
  private heldBytes = 0
  private readonly chunks: BodyChunks
  /** The body piped (startPipe): settles at its end. */
  private piping: Promise<void> | undefined
  /** Read to its end and ended before the response began (endBeforeAnswer): pull only writes what is pending. */
  private endedEarly = false
  /** A failed read's failure (`failed`), for a protocol without an error event of its own: the stream closes with it. */
  private closeWith: GatewayError | undefined

  /** `body`: the forwarded answer's chunks, read under the provider's timers, and its decoder (ForwardedAnswer). */
  constructor(
    body: ForwardedStream,
    meter: Meter,
    codec: AnswerCodec,
    private readonly scope: AbortScope,
  ) {
    super(body, meter, codec)
    this.chunks = body.chunks
    this.maxHeldBytes = body.maxHeldBytes
  }

  async prime(): Promise<void> {
    try {
      while (!this.meter.begun && !this.ended) {
        this.hold(this.chunks.took(await this.chunks.read()))
        if (this.failure && !this.failedMidAnswer) throw this.failure
      }
    } catch (error) {
      const failure = this.chunks.failure(error)
      this.chunks.cancel()
      throw failure
    }
  }

  /**
   * Take a read whose bytes may stay unsent for a while: before the answer begins (prime) and from its finish on (held
   * for the bill). An upstream that sends and sends then is not held without end: past `maxHeldBytes` unsent
   * (limits.upstream_body_bytes), a 502 `upstream_malformed`. Writing what is pending starts the count again.
   */
  private hold(next: Bun.ReadableStreamDefaultReadResult<Uint8Array>): void {
    this.heldBytes += this.receive(next)
    if (this.heldBytes <= this.maxHeldBytes) return
    const when = this.meter.begun ? 'after its finish' : 'without beginning its answer'
    throw new GatewayError('upstream', `Upstream sent more than ${this.maxHeldBytes} bytes ${when}`, { code: 'upstream_malformed' })
  }

  /**
   * An answer whose finish came with its beginning (prime read it: a short answer, or one the upstream wrote at once)
   * is read to its end and ended here, billed, before its response begins. Its bytes were held from the finish on
   * anyway; ended first, the response's head goes out with them in one write, where a pull that waits for the bill
   * sends the head alone (one more system call and packet a stream: ~9 µs of the main thread on loopback). Resolves
   * once it has ended so, a failed read included (`failed`); undefined, at once and without a promise, for the usual
   * stream, whose finish is still to come.
   */
  endBeforeAnswer(): Promise<true> | undefined {
    if (this.meter.finishReason === undefined || this.failure) return undefined
    this.endedEarly = true
    return this.readToEndAndSettle()
  }

  private async readToEndAndSettle(): Promise<true> {
    try {
      while (!this.ended) this.hold(this.chunks.took(await this.chunks.read()))
    } catch (error) {
      await this.ending.finish(this.failed(error))
      return true
    }
    await this.ending.finish(this.failure ? outcomeOf(this.failure) : { status: 200 })
    return true
  }

  /** The direct stream's one pull (direct-tap.ts): the answer written as it comes, to its end. */
  async pull(controller: ReadableStreamDirectController): Promise<void> {
    const { ending } = this
    if (this.endedEarly) return this.writeEnded(controller)
    try {
      // What prime() held back goes at once, unless the answer finished within it (then it waits for the bill).
      if (this.pending.length > 0) {
        const passed = this.pass(controller)
        if (passed === 'left') return
        if (passed instanceof Promise && !(await drained(passed, this.writeIdleMs))) return await this.abandon(controller, ending)
      }
      const piping = this.ended ? undefined : this.startPipe(controller)
      if (piping !== undefined) await piping
      else await this.readToEnd(controller)
      if (ending.done || this.leaving) return
      await ending.finish(this.failure ? outcomeOf(this.failure) : { status: 200 })
      if (this.leaving) return
      void this.sendPending(controller) // the last bytes: close() below ends the stream after them
      controller.close()
    } catch (error) {
      if (ending.done || this.leaving) return // the client left while a read was pending; that read's failure is ours alone
      const outcome = this.failed(error)
      // Written at once, the bill after: a failed answer is not a complete one, and a shutdown past its drain
      // deadline must still get its error event out before the connections close.
      this.writeEnded(controller)
      await ending.finish(outcome)
    }
  }

  /**
   * A read failed after the answer began (a stall, a cut, a timeout): what was held back with the finish goes to the
   * client too — it is billed as produced — then the protocol's own error event (never a silent cut), or the stream
   * closes with the failure where the protocol has none. Returns the outcome to bill.
   */
  private failed(error: unknown): Omit<Outcome, 'usage'> {
    const failure = toGatewayError(this.chunks.failure(error))
    if (this.codec.encodeRawError) this.pending.push(encoder.encode(this.codec.encodeRawError(failure)))
    else this.closeWith = failure
    return outcomeOf(failure)
  }

  /** An answer ended (before its response began, or by a failed read): what is pending written and the stream closed. */
  private writeEnded(controller: ReadableStreamDirectController): void {
    if (this.leaving) return
    void this.sendPending(controller) // close() ends the stream after these bytes
    if (this.closeWith) controller.close(this.closeWith)
    else controller.close()
  }

  /** The rest of the answer read a promise a chunk (a fetched body, which cannot be piped), written as it comes. */
  private async readToEnd(controller: ReadableStreamDirectController): Promise<void> {
    const { ending } = this
    while (true) {
      while (this.pending.length === 0 && !this.ended) this.hold(this.chunks.took(await this.chunks.read()))
      const passed = this.pass(controller)
      if (passed === 'left') return // the client left while a read was pending
      if (passed === 'held') break
      // No extra tick unless the client is slow; one that takes nothing for writeIdleMs has gone.
      if (passed instanceof Promise && !(await drained(passed, this.writeIdleMs))) return await this.abandon(controller, ending)
    }
    while (!this.ended) this.hold(this.chunks.took(await this.chunks.read()))
  }

  /**
   * What the bytes taken so far become: nothing, once the client has left; held back from the answer's finish on (the
   * finish itself, usage, the closing event) until the bill is durable — a client never holds a complete answer whose
   * bill a crash could lose; else written now (a promise while the client's socket is full).
   */
  private pass(controller: ReadableStreamDirectController): 'left' | 'held' | undefined | Promise<unknown> {
    if (this.ending.done || this.leaving) return 'left'
    if (this.ended || this.meter.finishReason !== undefined) return 'held'
    return this.sendPending(controller) ?? undefined
  }

  /**
   * The rest of the answer piped (the own client's answers: BodyChunks.pipeTo): each chunk taken, metered and written
   * in the socket's own callback, as readToEnd does a read at a time but without a promise a chunk. Resolves at the
   * body's end; rejects with what failed. Undefined when the body cannot be piped.
   */
  private startPipe(controller: ReadableStreamDirectController): Promise<void> | undefined {
    const { ending } = this
    let ended!: () => void
    let failed!: (error: unknown) => void
    const piping = new Promise<void>((resolve, reject) => {
      ended = resolve
      failed = reject
    })
    const piped = this.chunks.pipeTo?.({
      chunk: (bytes) => {
        try {
          this.hold({ done: false, value: bytes })
          const passed = this.pass(controller)
          // The client left: read on unsent (readOn), or until the stream's end aborts the upstream.
          if (passed === 'left') this.dropPending()
          if (!(passed instanceof Promise)) return
          // The socket waits while the client's is full; a client that takes nothing for writeIdleMs has gone.
          return drained(passed, this.writeIdleMs).then((took) => {
            if (!took) void this.abandon(controller, ending)
          })
        } catch (error) {
          failed(error)
          this.chunks.cancel()
        }
      },
      end: () => {
        try {
          this.receive(bodyDone)
          ended()
        } catch (error) {
          failed(error)
        }
      },
      fail: failed,
    })
    if (!piped) return undefined
    this.piping = piping
    return piping
  }

  async cancel(): Promise<void> {
    this.leaving = true
    if (this.scope.readsOn) await this.readOn()
    // `end` aborts the upstream first thing, which also unblocks a read parked on it. A client that leaves after
    // the upstream's own error event was relayed leaves a failed answer, not a cut-short one.
    await this.ending.finish(this.failure ? outcomeOf(this.failure) : { status: 499, errorType: 'client_closed' })
    this.chunks.cancel()
  }

  /** The client has left: what is pending will never be sent, so none of it counts as held. */
  private dropPending(): void {
    this.pending.length = 0
    this.heldBytes = 0
  }

  /** Write what is ready, at once: a promise when the client's socket is full (sendNow). */
  private sendPending(controller: ReadableStreamDirectController): void | Promise<unknown> {
    const pending = this.pending
    this.heldBytes = 0
    const sent = pending.length === 1 ? sendNow(controller, pending[0]!) : sendNow(controller, ...pending)
    pending.length = 0
    return sent
  }

  /** The client took nothing for the write deadline: end as if it had left, and drop its connection. */
  private async abandon(controller: ReadableStreamDirectController, ending: StreamEnding): Promise<void> {
    if (this.leaving) return
    this.leaving = true
    await ending.finish(this.failure ? outcomeOf(this.failure) : { status: 499, errorType: 'client_closed' })
    this.chunks.cancel()
    controller.close(clientClosed())
  }

  /** The client left a reasoning answer: read the rest, unsent, so the bill is the upstream's own final report. */
  async readOn(): Promise<void> {
    if (this.piping !== undefined) {
      await this.piping.catch(() => {}) // the pipe reads on by itself, sending nothing once the client has left
      return
    }
    try {
      while (!this.ended) {
        this.receive(this.chunks.took(await this.chunks.read()))
        this.dropPending()
      }
    } catch {
      // The upstream failed or one of its timers ended the attempt: the bill is what was seen.
    }
  }
}
