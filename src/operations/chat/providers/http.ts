import type { Target } from '../../../core/provider.ts'
import type { AnswerDecoder } from '../../../providers/http-codec.ts'
import type { Transport } from '../../../providers/http.ts'
import type { ChatRequest, ChatResponse, StreamEvent } from '../core/ir.ts'
import type { ChatUpstream } from '../core/upstream.ts'

/** Chat's wire format toward one kind of HTTP upstream: what each vendor's chat folder supplies. */
export interface ChatHttpCodec extends Required<AnswerDecoder<ChatResponse, StreamEvent>> {
  /** The chat client protocol this kind of upstream speaks natively, so a request in it may be forwarded as bytes. */
  nativeProtocol?: string
  /** The upstream path (below its base URL), the JSON body and any headers for an IR request. */
  encodeRequest(request: ChatRequest, target: Target): { path: string; body: unknown; headers?: Record<string, string> }
}

/** Chat toward an HTTP upstream: the request encoded by the vendor's chat codec, sent and read by its transport. */
export function createHttpChatUpstream(transport: Transport, codec: ChatHttpCodec): ChatUpstream {
  const { config } = transport

  /** The IR request encoded, sent, and its answer to be read by the codec: over the own client, as a forwarded one's. */
  function send(request: ChatRequest, target: Target, attempt: AbortController, traceparent: string | null | undefined) {
    const encoded = codec.encodeRequest(request, target)
    const outgoing = { path: encoded.path, body: JSON.stringify(encoded.body), headers: encoded.headers }
    return transport.forward(outgoing, codec, attempt, traceparent)
  }

  const protocol = config.passthrough ? codec.nativeProtocol : undefined
  return {
    async complete(request, target, attempt, traceparent) {
      const answer = await send({ ...request, stream: false }, target, attempt, traceparent)
      return (await answer.readWhole()).answer
    },
    async stream(request, target, attempt, traceparent) {
      const answer = await send({ ...request, stream: true }, target, attempt, traceparent)
      return transport.eventsOf(answer.readStream())
    },
    passthrough:
      protocol === undefined
        ? undefined
        : {
            protocol,
            forward: (request, _target, attempt, traceparent) => transport.forward(request, codec, attempt, traceparent),
          },
  }
}
