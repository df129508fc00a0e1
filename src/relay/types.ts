import type { GatewayError, RateLimitState } from '../core/errors.ts'
import type { ChatRequest, ChatResponse, StreamEvent, Usage } from '../core/ir.ts'
import type { ForwardRequest, Target } from '../core/provider.ts'
import type { SseEvent } from '../core/sse.ts'
import type { KeyRecord } from '../domain/records.ts'
import type { AbortScope } from './abort-scope.ts'

/** The relay's shared types, in one module of their own so that the pipeline's files do not import each other back. */

/** The API key a request was authenticated with, as the relay sees it. */
export type Caller = KeyRecord

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
  /** Offered by a protocol that can forward its own wire format untouched to a provider that speaks it. */
  forward?: (target: Target) => ForwardRequest
  /** Passthrough streams: drop these events instead of forwarding them (usage the client did not ask for). */
  dropRawEvent?: (event: SseEvent) => boolean
  /** Passthrough streams: how this protocol writes an error event when the upstream fails mid-stream. */
  encodeRawError?: (error: GatewayError) => string
}

/** `target`: the route that served the answer. `rateLimit`: the key's limits after this request, for headers. */
export type RelayResult = (
  | { kind: 'response'; response: ChatResponse; target: Target }
  | { kind: 'stream'; events: AsyncIterable<StreamEvent>; target: Target }
  | { kind: 'raw'; body: string; target: Target }
  | { kind: 'raw-stream'; body: ReadableStream<Uint8Array>; target: Target }
) & { rateLimit?: RateLimitState }

/** How a request ended, for its usage row. */
export interface Outcome {
  status: number
  usage?: Usage
  errorType?: string
}
