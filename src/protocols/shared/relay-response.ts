import type { ChatResponse, StreamEvent } from '../../core/ir.ts'
import type { RelayResult } from '../../relay/types.ts'
import { sseHeaders } from '../../core/sse.ts'
import { jsonResponse, rawStreamResponse, streamResponse } from '../../edge/respond.ts'

/** A protocol's encoders for one request (a small class per protocol: one object, no closure per method). */
export interface RelayEncoders {
  /** A whole IR answer → the protocol's JSON body. */
  encodeResponse(response: ChatResponse): unknown
  /** IR events → the protocol's SSE text. */
  encodeStream(events: AsyncIterable<StreamEvent>): AsyncIterable<string>
  /** The client left mid-stream: abort the upstream at once. */
  onCancel(): void
}

/**
 * A relay result as an HTTP response: forwarded bytes as they came, IR answers through the protocol's encoders.
 * `headers` is the caller's own object for this one response; the content type is added to it.
 */
export function relayResponse(result: RelayResult, headers: Record<string, string>, encoders: RelayEncoders): Response {
  switch (result.kind) {
    case 'raw':
      headers['content-type'] = 'application/json'
      return new Response(result.body, { headers })
    case 'raw-stream':
      return rawStreamResponse(result.body, { ...sseHeaders, ...headers })
    case 'response':
      return jsonResponse(encoders.encodeResponse(result.response), 200, headers)
    case 'stream':
      return streamResponse(encoders.encodeStream(result.events), { ...sseHeaders, ...headers }, () => encoders.onCancel())
  }
}
