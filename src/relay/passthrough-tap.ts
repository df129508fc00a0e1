import type { ForwardedStream, StreamDecoder } from '../core/provider.ts'
import { directStream, drained, sendNow } from '../core/direct-stream.ts'
import { clientClosed, GatewayError, toGatewayError } from '../core/errors.ts'
import type { Meter } from './meter.ts'
import type { AbortScope } from './abort-scope.ts'
import { outcomeOf } from './outcome.ts'
import type { AnswerCodec, Outcome } from './types.ts'
import { formatSse, type SseParser, type SseEvent } from '../core/sse.ts'

const encoder = new TextEncoder()

/**
 * The passthrough stream: upstream bytes go to the client as they arrive, while a parser on the side feeds the
 * provider's own stream decoder so the meter sees the same IR events as on the translated path.
 * When `dropRawEvent` is given, events are re-framed one by one so that the dropped ones can be left out.
 *
 * `prime()` reads until the answer has begun, keeping the bytes: a failure before that point (an error event, a cut,
 * a stall) is thrown so the relay can retry elsewhere, and nothing has reached the client yet.
 */
export class PassthroughTap {
  private readonly parser: SseParser
  /** What prime() may hold back before the answer begins (limits.upstream_body_bytes). */
  private readonly maxHeldBytes: number
  private heldBytes = 0
  private readonly decoder: StreamDecoder
  private readonly chunks: AsyncGenerator<Uint8Array>
  private readonly pending: Uint8Array[] = []
  private ended = false
  /** The client cancelled: nothing more is sent (a read may still be running, for a request that reads on). */
  private leaving = false
  /** An error the upstream reported in the stream itself. */
  private failure: GatewayError | undefined
  /** The failure came after the answer began (in the same network read, maybe): it goes to the client, not to a retry. */
  private failedMidAnswer = false

  /** `body`: the forwarded answer's chunks, read under the provider's timers, and its decoder (ForwardedAnswer). */
  constructor(body: ForwardedStream, private readonly meter: Meter, private readonly codec: AnswerCodec, private readonly scope: AbortScope) {
    this.decoder = body.decoder
    this.chunks = body.chunks
    this.parser = body.parser
    this.maxHeldBytes = body.maxHeldBytes
  }

  async prime(): Promise<void> {
    try {
      while (!this.meter.begun && !this.ended) {
        this.heldBytes += await this.readNext()
        if (this.failure && !this.failedMidAnswer) throw this.failure
        // An upstream that sends and sends without beginning its answer is not held without end.
        if (this.heldBytes > this.maxHeldBytes) throw new GatewayError('upstream', `Upstream sent more than ${this.maxHeldBytes} bytes without beginning its answer`, { code: 'upstream_malformed' })
      }
    } catch (error) {
      void this.chunks.return(undefined)
      throw error
    }
  }

  /**
   * The client's body (a direct stream, direct-stream.ts); `end` is called once, however the stream ends (it aborts
   * the upstream and settles). Nothing more is read from the upstream while the client's socket is full; a client
   * that takes nothing for `writeIdleMs` is treated as gone (499, billed for what was produced).
   */
  toStream(end: (outcome: Omit<Outcome, 'usage'>) => Promise<void>, writeIdleMs: number): ReadableStream<Uint8Array> {
    let finished = false
    const finish = async (outcome: Omit<Outcome, 'usage'>) => {
      if (finished) return
      finished = true
      await end(outcome)
    }
    return directStream({
      type: 'direct',
      pull: async (controller) => {
        try {
          while (true) {
            while (this.pending.length === 0 && !this.ended) await this.readNext()
            if (finished || this.leaving) return // the client left while a read was pending
            // From the answer's finish on, what is left (the finish itself, usage, the closing event) is held back
            // until the bill is durable: a client never holds a complete answer whose bill a crash could lose.
            if (this.ended || this.meter.finishReason !== undefined) break
            const sent = sendNow(controller, ...this.pending.splice(0))
            // No extra tick unless the client is slow; one that takes nothing for writeIdleMs has gone.
            if (sent && !await drained(sent, writeIdleMs)) return await this.abandon(controller, finish)
          }
          while (!this.ended) await this.readNext()
          if (finished || this.leaving) return
          await finish(this.failure ? outcomeOf(this.failure) : { status: 200 })
          if (this.leaving) return
          sendNow(controller, ...this.pending.splice(0))
          controller.close()
        } catch (error) {
          if (finished || this.leaving) return // the client left while a read was pending; that read's failure is ours alone
          const failure = toGatewayError(error)
          // A mid-stream failure ends with the protocol's own error event, never a silent cut.
          if (this.codec.encodeRawError) {
            controller.write(encoder.encode(this.codec.encodeRawError(failure)))
            controller.close()
          } else controller.close(failure)
          await finish(outcomeOf(failure))
        }
      },
      cancel: async () => {
        this.leaving = true
        if (this.scope.readsOn) await this.readOn()
        // `end` aborts the upstream first thing, which also unblocks a read parked on it. A client that leaves after
        // the upstream's own error event was relayed leaves a failed answer, not a cut-short one.
        await finish(this.failure ? outcomeOf(this.failure) : { status: 499, errorType: 'client_closed' })
        void this.chunks.return(undefined)
      },
    })
  }

  /** The client took nothing for the write deadline: end as if it had left, and drop its connection. */
  private async abandon(controller: ReadableStreamDirectController, finish: (outcome: Omit<Outcome, 'usage'>) => Promise<void>): Promise<void> {
    if (this.leaving) return
    this.leaving = true
    await finish(this.failure ? outcomeOf(this.failure) : { status: 499, errorType: 'client_closed' })
    void this.chunks.return(undefined)
    controller.close(clientClosed())
  }

  /** The client left a reasoning answer: read the rest, unsent, so the bill is the upstream's own final report. */
  async readOn(): Promise<void> {
    try {
      while (!this.ended) {
        await this.readNext()
        this.pending.length = 0
      }
    } catch {
      // The upstream failed or one of its timers ended the attempt: the bill is what was seen.
    }
  }

  /** Read one upstream chunk; returns its size. */
  private async readNext(): Promise<number> {
    const next = await this.chunks.next()
    if (next.done) {
      this.take(this.parser.finish())
      const relayedError = this.failure !== undefined
      for (const event of this.decoder.finish()) this.observe(event)
      // The body ended before the protocol's own end (a dropped connection) and the upstream sent no error event
      // of its own: the client gets ours rather than a silent cut.
      if (this.failure && !relayedError && this.codec.encodeRawError) this.pending.push(encoder.encode(this.codec.encodeRawError(this.failure)))
      this.ended = true
      if (!this.failure) this.meter.ended = true
      return 0
    }
    if (!this.codec.dropRawEvent) this.pending.push(next.value)
    this.take(this.parser.push(next.value))
    return next.value.byteLength
  }

  private take(events: SseEvent[]): void {
    const drop = this.codec.dropRawEvent
    // Re-framed events of one read go out as one chunk: one encode per read rather than per event.
    let kept = ''
    for (const event of events) {
      for (const ir of this.decoder.decode(event)) this.observe(ir)
      if (drop && !drop(event)) kept += formatSse(event.data, event.event)
    }
    if (kept) this.pending.push(encoder.encode(kept))
  }

  private observe(event: Parameters<Meter['observe']>[0]): void {
    this.meter.observe(event)
    if (event.type !== 'error' || this.failure) return
    this.failure = event.error
    this.failedMidAnswer = this.meter.begun
  }
}
