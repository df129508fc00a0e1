import type { GatewayError, RateLimitState } from '../../core/errors.ts'
import type { AnswerEvent, OperationRequest } from '../../core/operation.ts'
import type { LimitsConfig } from '../../config/types.ts'
import type { Services } from '../../edge/services.ts'
import type { AnswerCodec, Operation } from '../../relay/types.ts'
import type { Json } from './validate.ts'

/**
 * One request as its protocol decoded it: the request in its operation's IR, and how its answer is written back
 * (whole, streamed, forwarded). A small class per protocol, made once per request: the relay holds it as the call's
 * codec, so no closure is made for any of its methods.
 */
export interface Exchange extends AnswerCodec {
  readonly request: OperationRequest
  /** IR events → the protocol's streamed text (for an operation whose answers stream). */
  encodeStream?(events: AsyncIterable<AnswerEvent>): AsyncIterable<string>
  /** A streamed answer's content type, when it is not SSE (Gemini's JSON-array stream, audio). */
  readonly streamContentType?: string
  /** A whole answer's content type, when it is not the protocol's own (a transcript as text, SRT or VTT). */
  readonly wholeContentType?: string
  /** Called once the relay is done with the request (every attempt sent): removes what it kept aside (a spooled upload). */
  dispose?(): Promise<void>
}

/** A request whose body is not JSON (a multipart upload): its protocol reads it itself into an exchange. */
export interface ReadExchange {
  exchange: Exchange
  /** An upper bound on the input's tokens, for the hold: the body's bytes, as for a JSON body. */
  inputBound: number
}

/** What every endpoint of a client protocol needs, the relayed ones or not: where its key is, how its errors look. */
export interface ProtocolFront {
  /**
   * The key as this protocol's clients send it. `undefined` when there is none (authentication answers with the
   * common 401), or the protocol's own 401 thrown when its clients need telling where the key goes.
   */
  readSecret(request: Request): string | undefined
  /** A failure as this protocol's error response: its body shape, its status, its headers. */
  renderError(failure: GatewayError, requestId?: string): Response
}

/** A client protocol whose requests are relayed (define-protocol.ts): it supplies only its own pieces. */
export interface ClientProtocol extends ProtocolFront {
  /** Recorded with each request, and compared with a provider's for passthrough (`openai-chat`, `anthropic`, …). */
  readonly name: string
  /** The kind of model call its requests are (chat, embeddings): how the relay holds, meters and prices them. */
  readonly operation: Operation
  /** The parsed body (and its text, for passthrough) → this request's exchange; a 400 when the body is not valid. */
  decode(body: Json, text: string, request: Request, requestId: string): Exchange
  /** Instead of `decode`, for a body that is not JSON: read it (within the body deadline) and make the exchange. */
  readExchange?(request: Request, limits: LimitsConfig): Promise<ReadExchange>
  /** A fresh object of headers for an answer: the request id as the protocol's SDKs read it, rate limits. */
  answerHeaders(requestId: string, rateLimit: RateLimitState | undefined): Record<string, string>
  /** The content type of a whole (non-streamed) answer. */
  readonly wholeContentType: string
}

/** An endpoint with its services bound by the route table (routes.ts). */
export type ProtocolHandler = (services: Services, request: Request) => Promise<Response>
