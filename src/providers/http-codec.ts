import type { HeaderReader } from '../core/http1-head.ts'
import type { ProviderConfig } from '../config/types.ts'
import type { GatewayError } from '../core/errors.ts'
import type { AnswerEvent } from '../core/operation.ts'
import type { StreamDecoder } from '../core/provider.ts'

export interface StreamDecoderOptions {
  /** The provider's own key: an in-stream error event that quotes it (whole or in pieces) has it redacted. */
  apiKey?: string
}

/**
 * How to speak to one kind of HTTP upstream, whatever the operation: its credentials and what its refusals mean.
 * Each vendor's folder (providers/<vendor>/index.ts) supplies one; http.ts makes a Transport of it.
 */
export interface HttpVendor {
  authHeaders(provider: ProviderConfig): Record<string, string>
  decodeError(status: number, body: string, headers: HeaderReader): GatewayError
}

/** An operation's answers as one kind of upstream writes them: a whole JSON body, and SSE when it streams. */
export interface AnswerDecoder<Answer, Event extends AnswerEvent = AnswerEvent> {
  decodeResponse(body: unknown): Answer
  /** Absent for an operation whose answers are never streamed (embeddings). */
  createStreamDecoder?(options?: StreamDecoderOptions): StreamDecoder<Event>
}
