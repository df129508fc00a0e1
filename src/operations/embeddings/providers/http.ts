import type { Target } from '../../../core/provider.ts'
import type { AnswerDecoder } from '../../../providers/http-codec.ts'
import type { Transport } from '../../../providers/http.ts'
import type { EmbeddingsAnswer, EmbeddingsRequest } from '../core/ir.ts'
import type { EmbeddingsUpstream } from '../core/upstream.ts'

/** Embeddings' wire format toward one kind of HTTP upstream. */
export interface EmbeddingsHttpCodec extends AnswerDecoder<EmbeddingsAnswer> {
  /** The embeddings client protocol this kind of upstream speaks natively, so a request in it may be forwarded as bytes. */
  nativeProtocol: string
  /** The most inputs one call takes on this kind of upstream, unless the provider's config says otherwise. */
  inputsPerCall: number
  /** The upstream path and JSON body for one call; a 400 (refuseField) for what this kind cannot carry. */
  encodeRequest(request: EmbeddingsRequest, target: Target): { path: string; body: unknown }
}

/** Embeddings toward an HTTP upstream: the request encoded by the vendor's embeddings codec, sent and read by its transport. */
export function createHttpEmbeddingsUpstream(transport: Transport, codec: EmbeddingsHttpCodec): EmbeddingsUpstream {
  const { config } = transport
  return {
    inputsPerCall: config.embeddingInputsPerCall ?? codec.inputsPerCall,
    async embed(request, target, attempt, traceparent) {
      const encoded = codec.encodeRequest(request, target)
      return transport.answer({ path: encoded.path, body: JSON.stringify(encoded.body) }, codec, attempt, traceparent)
    },
    passthrough: !config.passthrough
      ? undefined
      : {
          protocol: codec.nativeProtocol,
          forward: (request, _target, attempt, traceparent) => transport.forward(request, codec, attempt, traceparent),
        },
  }
}
