import type { GatewayError, RateLimitState } from '../core/errors.ts'
import type { ChatRequest, ChatResponse, StreamEvent, Usage } from '../operations/chat/core/ir.ts'
import type { ForwardRequest, Target } from '../core/provider.ts'
import type { SseEvent } from '../core/sse.ts'
import type { KeyRecord, UsageRecord } from '../domain/records.ts'
import type { AbortScope } from './abort-scope.ts'

/** The relay's shared types, in one module of their own so that the pipeline's files do not import each other back. */

/** The API key a request was authenticated with, as the relay sees it. */
export type Caller = KeyRecord

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
  encodeWhole(response: ChatResponse): string
  /** Offered by a protocol that can forward its own wire format untouched to a provider that speaks it. */
  readonly forward?: (target: Target) => ForwardRequest
  /** Passthrough streams: drop these events instead of forwarding them (usage the client did not ask for). */
  readonly dropRawEvent?: (event: SseEvent) => boolean
  /** Passthrough streams: how this protocol writes an error event when the upstream fails mid-stream. */
  encodeRawError?(error: GatewayError): string
}

/** One client request, already authenticated and decoded by its protocol. */
export interface RelayCall {
  key: Caller
  /** The client protocol's name (`openai-chat`, …): recorded, and compared with a provider's for passthrough. */
  protocol: string
  requestId: string
  request: ChatRequest
  /** An upper bound on the prompt's tokens (its byte length), for the hold. */
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
 * it) and settled as such. `target`: the route that served the answer. `rateLimit`: the key's limits after this
 * request, for headers.
 */
export type RelayResult = (
  | { kind: 'whole'; body: string; target: Target }
  | { kind: 'stream'; events: AsyncIterable<StreamEvent>; target: Target }
  | { kind: 'raw-stream'; body: ReadableStream<Uint8Array>; target: Target }
) & { rateLimit?: RateLimitState }

/** How a request ended, for its usage row. */
export interface Outcome {
  status: number
  usage?: Usage
  errorType?: string
  /** Why it failed, when it did: an unexpected failure is logged (once) when the request settles. */
  failure?: GatewayError
}
