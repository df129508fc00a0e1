import type { ModelConfig, ProviderConfig } from '../config/types.ts'
import type { GatewayError } from '../core/errors.ts'
import type { ChatRequest, ChatResponse, StreamEvent } from '../core/ir.ts'
import type { SseEvent } from '../core/sse.ts'

/** Where one attempt goes: a provider, the model id it knows, and the gateway model behind it. */
export interface Target {
  provider: ProviderConfig
  upstreamModel: string
  model: ModelConfig
  /** `routeId(target)`, remembered by routing.ts the first time it is asked for. */
  route?: string
}

/** Turns upstream SSE events into IR events; stateful, one per stream. */
export interface StreamDecoder {
  decode(event: SseEvent): StreamEvent[]
  /** The body ended: close what is open (and report an error if the stream was cut short). */
  finish(): StreamEvent[]
}

/** A raw upstream request for the passthrough path: the client's own body, lightly rewritten. */
export interface ForwardRequest {
  /** Path below the provider's base URL, with query string, e.g. `/chat/completions`. */
  path: string
  body: string
  stream: boolean
  /** Client headers that change what the body means upstream (Anthropic's `anthropic-beta`); never credentials. */
  headers?: Record<string, string>
}

export interface Provider {
  readonly config: ProviderConfig
  /** The client protocol this upstream speaks natively; requests in it may be forwarded byte for byte. */
  readonly nativeProtocol?: string
  /**
   * `attempt` is this attempt's own controller (abort-scope.ts): the relay aborts it when the client leaves, and
   * the provider aborts it itself, with a GatewayError as the reason, when one of its timers runs out.
   */
  complete(request: ChatRequest, target: Target, attempt: AbortController): Promise<ChatResponse>
  /** Resolves once the upstream has accepted the request (status and headers in), before any event is read. */
  stream(request: ChatRequest, target: Target, attempt: AbortController): Promise<AsyncIterable<StreamEvent>>
  /** Passthrough: returns the upstream's successful response untouched, or throws a GatewayError. */
  forward?(request: ForwardRequest, target: Target, attempt: AbortController): Promise<Response>
  /** Passthrough metering: read usage from the bytes being forwarded. */
  createStreamDecoder?(): StreamDecoder
  decodeResponse?(body: unknown): ChatResponse
}

/** What an HTTP-speaking provider folder supplies; providers/http.ts turns it into a Provider. */
export interface HttpCodec {
  nativeProtocol?: string
  /** The upstream URL, headers and JSON body for an IR request. */
  encodeRequest(request: ChatRequest, target: Target): { path: string; body: unknown; headers?: Record<string, string> }
  authHeaders(provider: ProviderConfig): Record<string, string>
  decodeResponse(body: unknown): ChatResponse
  createStreamDecoder(): StreamDecoder
  decodeError(status: number, body: string, headers: Headers): GatewayError
}
