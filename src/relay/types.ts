import type { ModelConfig } from '../config/types.ts'
import type { ErrorCode } from '../core/error-codes.ts'
import type { ErrorKind, GatewayError, RateLimitState } from '../core/errors.ts'
import type { AnswerEvent, OperationRequest } from '../core/operation.ts'
import type { Price } from '../core/pricing.ts'
import type { ForwardRequest, Target } from '../core/provider.ts'
import type { SseEvent } from '../core/sse.ts'
import type { Usage } from '../core/usage.ts'
import type { KeyRecord, UsageRecord } from '../domain/records.ts'
import type { AbortScope } from './abort-scope.ts'
import type { Attempt } from './attempt.ts'
import type { Meter } from './meter.ts'
import type { StreamEnding } from './stream-ending.ts'

/** The relay's shared types, in one module of their own so that the pipeline's files do not import each other back. */

/** The API key a request was authenticated with, as the relay sees it. */
export type Caller = KeyRecord

/**
 * A kind of model call (chat, embeddings…), as the relay needs it: everything that differs between operations is
 * here, implemented in the operation's own folder (operations/<name>/relay/operation.ts), so the relay, holds,
 * settlement, limits, routing, retries and tracing work for every operation alike. `Request` is the operation's IR.
 */
export interface Operation<Request extends OperationRequest = OperationRequest> {
  /** Recorded with every usage row and metric, and the trace's `gen_ai.operation.name`: `chat`, `embeddings`. */
  readonly name: string
  /** The `kind:` a model declares to serve this operation (config); a model of another kind refuses it (400). */
  readonly modelKind: string
  /** Before any money is held: refuse what some model of the plan cannot serve safely (a 400 naming the field). */
  checkPlan?(request: Request, plan: readonly Target[]): void
  /**
   * The hold rule: the most the request can cost on `model`, its input bounded by `inputBound` (the body's bytes).
   * The hold is the largest of these over every model the request may end up on.
   */
  worstCaseOn(request: Request, inputBound: number, model: ModelConfig): number
  /** The tokens the key's tpm limit counts when the request is admitted (an estimate, corrected at settlement). */
  admittedTokens(request: Request): number
  /** Read the upstream's answer to its end after the client left, so hidden work is billed from its report. */
  readsOnAfterClientLeaves(model: ModelConfig, request: Request): boolean
  /**
   * Send one attempt and read until nothing can go wrong unseen any more (a whole answer, or a stream whose answer
   * has begun); a failure before that is thrown as a GatewayError, and the relay may retry elsewhere.
   */
  open(attempt: Attempt, request: Request): Promise<OpenedAttempt>
  /** A fresh meter for one attempt's answer. */
  createMeter(request: Request): Meter
  /** What `usage` costs at `price`, in nano-dollars (rounded up once). */
  costOf(usage: Usage, price: Price): number
  /** The request's own settings on its trace span (the GenAI conventions' `gen_ai.request.*`). */
  describe?(request: Request, attributes: Record<string, string | number | boolean | string[]>): void
}

/** An attempt that got far enough to answer the client: whole (non-streamed) or begun (streamed). */
export type OpenedAttempt =
  /** A whole answer in the operation's IR, written in the client's wire format by its codec. */
  | { kind: 'answer'; answer: unknown }
  /** A whole answer forwarded as the upstream wrote it (passthrough). */
  | { kind: 'raw'; body: string }
  | { kind: 'stream'; head: AnswerEvent[]; events: AsyncIterator<AnswerEvent> }
  | { kind: 'raw-stream'; tap: StreamTap }

/**
 * A forwarded answer streamed to the client as bytes: SSE relayed event by event (passthrough-tap.ts), or any other
 * body chunk by chunk (byte-tap.ts: audio). `ending` (the attempt) settles the request once, however the stream ends.
 */
export interface StreamTap {
  toStream(ending: StreamEnding, writeIdleMs: number): ReadableStream<Uint8Array>
  /** Read the rest unsent (a request that reads on after its client left). */
  readOn(): Promise<void>
  /**
   * After `toStream`, before the response begins: an answer whose finish came with its beginning (a short one) is
   * read to its end and its stream ended now, billed: resolves once it has. Undefined for a stream whose finish is
   * still to come (the usual one). Its response then goes out in one write.
   */
  endBeforeAnswer?(): Promise<true> | undefined
}

/**
 * What the client's protocol lends the relay for one request: how to write a whole answer in its wire format, and,
 * when it can, how to forward its own body untouched to an upstream that speaks it. One object per request (the
 * protocol's exchange), so the relay needs no closure of the protocol's.
 */
export interface AnswerCodec {
  /**
   * A whole IR answer as the body the client gets. The relay calls it before the request is settled, so what is
   * billed is what the client got: if it throws, the request settles as a 500 that costs nothing.
   */
  encodeWhole(answer: unknown): string
  /** Offered by a protocol that can forward its own wire format untouched to a provider that speaks it. */
  readonly forward?: (target: Target) => ForwardRequest
  /** Passthrough streams: drop these events instead of forwarding them (usage the client did not ask for). */
  readonly dropRawEvent?: (event: SseEvent) => boolean
  /** Passthrough streams: how this protocol writes an error event when the upstream fails mid-stream. */
  encodeRawError?(error: GatewayError): string
  /**
   * A stream's answer has begun: no attempt follows, so nothing is forwarded again. A stream may stay open for
   * minutes: the client's body (as text and as JSON), which only forwarding needed, is let go rather than kept as
   * long. The IR request stays (the meter estimates from it).
   */
  answerBegun?(): void
}

/** One client request, already authenticated and decoded by its protocol. */
export interface RelayCall {
  key: Caller
  /** The client protocol's name (`openai-chat`, …): recorded, and compared with a provider's for passthrough. */
  protocol: string
  requestId: string
  /** What the client asks for, in its operation's IR. */
  request: OperationRequest
  /** The kind of call it is: its hold, meter, price and upstream side. */
  operation: Operation
  /** An upper bound on the input's tokens (the body's byte length), for the hold. */
  inputBound: number
  /** Ends the request's upstream attempts when the client goes away (or the gateway stops). */
  scope: AbortScope
  codec: AnswerCodec
  /** The client's W3C `traceparent` header, read only when telemetry is on (relay/tracing.ts). */
  traceparent?: string | null
  /** Told the request's usage row as billed and when it is committed (batch items keep their cost). */
  onBilled?(usage: UsageRecord, committed: Promise<void>): void
}

/**
 * `whole`: a non-streamed answer, already in the client's wire format (encoded, or forwarded as the upstream wrote
 * it) and settled as such. `ended`: a raw stream read to its end and settled before its response began
 * (StreamTap.endBeforeAnswer). `target`: the route that served the answer. `rateLimit`: the key's limits after this
 * request, for headers.
 */
export type RelayResult = (
  | { kind: 'whole'; body: string; target: Target }
  | { kind: 'stream'; events: AsyncIterable<AnswerEvent>; target: Target }
  | { kind: 'raw-stream'; body: ReadableStream<Uint8Array>; target: Target; ended?: boolean }
) & { rateLimit?: RateLimitState }

/** How a request ended, for its usage row. */
export interface Outcome {
  status: number
  usage?: Usage
  /** The failure's code, else its kind (core/error-codes.ts). */
  errorType?: ErrorCode | ErrorKind
  /** Why it failed, when it did: an unexpected failure is logged (once) when the request settles. */
  failure?: GatewayError
}
