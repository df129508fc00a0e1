import type { ForwardedStream, StreamDecoder } from '../core/provider.ts'
import { DirectTap } from './direct-tap.ts'
import type { GatewayError } from '../core/errors.ts'
import { isErrorEvent } from '../core/operation.ts'
import type { Meter } from './meter.ts'
import type { AnswerCodec } from './types.ts'
import type { SseParser, SseEvent } from '../core/sse.ts'
import { EventBytes, keptBytes, reframed } from './event-bytes.ts'

const encoder = new TextEncoder()

/**
 * The passthrough stream's reading side (passthrough-tap.ts writes): each read of the upstream's bytes parsed into
 * events on the side, each event fed to the provider's own stream decoder so the meter sees the same IR events as on
 * the translated path, and the read's bytes queued for the client (`pending`) as they came, less what must not go.
 */
export abstract class PassthroughEvents extends DirectTap {
  private readonly parser: SseParser
  private readonly decoder: StreamDecoder
  /** Bytes read and ready for the client: usually one chunk. */
  protected readonly pending: Uint8Array[] = []
  protected ended = false
  /** An error the upstream reported in the stream itself. */
  protected failure: GatewayError | undefined
  /** The failure came after the answer began (in the same network read, maybe): it goes to the client, not to a retry. */
  protected failedMidAnswer = false
  /** Where the bytes of an event not yet complete wait for its end. */
  private readonly eventBytes: EventBytes
  /** An error event was sent in the protocol's own shape: the stream is over for the client. */
  private relayedError = false

  constructor(
    body: ForwardedStream,
    protected readonly meter: Meter,
    protected readonly codec: AnswerCodec,
  ) {
    super()
    this.decoder = body.decoder
    this.parser = body.parser
    this.eventBytes = new EventBytes(body.parser.maxEventChars)
  }

  /**
   * Take one read's result: meter its events and queue its bytes; returns its size. Not async, and called on the
   * awaited read rather than awaiting it itself: a promise and an async frame fewer per chunk.
   */
  protected receive(next: Bun.ReadableStreamDefaultReadResult<Uint8Array>): number {
    if (next.done) {
      const relayedError = this.failure !== undefined
      // The last event may end with the body rather than a blank line (Gemini's does): it goes out now.
      this.take(this.parser.finish(), this.eventBytes.rest())
      for (const event of this.decoder.finish()) this.observe(event)
      // The body ended before the protocol's own end (a dropped connection) and the upstream sent no error event
      // of its own: the client gets ours rather than a silent cut.
      if (this.failure && !relayedError && this.codec.encodeRawError)
        this.pending.push(encoder.encode(this.codec.encodeRawError(this.failure)))
      this.ended = true
      if (!this.failure) this.meter.ended = true
      return 0
    }
    const events = this.parser.push(next.value)
    this.take(events, this.eventBytes.complete(next.value))
    return next.value.byteLength
  }

  /**
   * Meter the events, and queue them for the client: `raw`, their own bytes, when they may go as they came; else
   * without those `dropRawEvent` leaves out, cut out of `raw` (keptBytes) or, where the cut cannot be shown to send
   * what re-framing would, re-framed. An error event is never relayed as the upstream wrote it: it is replaced by the
   * protocol's own error event with the decoder's scrubbed text, and nothing after it is sent.
   */
  private take(events: SseEvent[], raw: Uint8Array | undefined): void {
    let failedAt = -1
    let failure: GatewayError | undefined
    const drop = this.codec.dropRawEvent
    let dropped: number[] | undefined
    for (let index = 0; index < events.length; index++) {
      const event = events[index]!
      // Before the decoder: a drop test that parses the event leaves its parse to the decoder (eventJson).
      if (drop !== undefined && drop(event)) (dropped ??= []).push(index)
      for (const ir of this.decoder.decode(event)) {
        this.observe(ir)
        if (isErrorEvent(ir) && failedAt === -1) {
          failedAt = index
          failure = ir.error
        }
      }
    }
    if (this.relayedError) return
    if (failedAt === -1 && dropped === undefined) {
      if (raw !== undefined && raw.byteLength > 0) this.pending.push(raw)
      return
    }
    const end = failedAt === -1 ? events.length : failedAt
    const kept = raw === undefined ? undefined : keptBytes(raw, events, end, dropped)
    // Where the cut cannot be shown to send what re-framing would, the kept events are written anew (reframed).
    const bytes = kept ?? reframed(events, end, dropped)
    if (bytes !== undefined && bytes.byteLength > 0) this.pending.push(bytes)
    if (failure && this.codec.encodeRawError) {
      this.pending.push(encoder.encode(this.codec.encodeRawError(failure)))
      this.relayedError = true
    }
  }

  private observe(event: Parameters<Meter['observe']>[0]): void {
    this.meter.observe(event)
    if (!isErrorEvent(event) || this.failure) return
    this.failure = event.error
    this.failedMidAnswer = this.meter.begun
  }
}
