import type { Target } from '../../../../core/provider.ts'
import { bearerToken } from '../../../../edge/auth.ts'
import { encodeOpenAiRateLimitHeaders, openAiErrorResponse } from '../../../../protocols/openai-chat/error-response.ts'
import type { ClientProtocol, Exchange } from '../../../../protocols/shared/client-protocol.ts'
import { refuseDuplicateKeys } from '../../../../protocols/shared/duplicate-keys.ts'
import type { Json } from '../../../../protocols/shared/validate.ts'
import type { EmbeddingsAnswer, EmbeddingsRequest } from '../../core/ir.ts'
import { embeddingsOperation } from '../../relay/operation.ts'
import { decodeOpenAiEmbeddingsRequest } from './decode-request.ts'
import { encodeOpenAiEmbeddings } from './encode-response.ts'

/** One `/v1/embeddings` request: its IR, and its own body for an OpenAI-compatible upstream. */
class OpenAiEmbeddingsExchange implements Exchange {
  constructor(
    readonly request: EmbeddingsRequest,
    private readonly text: string,
    private readonly body: Json,
  ) {}

  /**
   * The client's own body, fields the gateway does not know included (a compatible server's `input_type`, say), with
   * only the model replaced by the upstream's id.
   */
  forward(target: Target) {
    refuseDuplicateKeys(this.text)
    const body = this.body.model === target.upstreamModel ? this.text : JSON.stringify({ ...this.body, model: target.upstreamModel })
    return { path: '/embeddings', body, stream: false }
  }

  encodeWhole(answer: EmbeddingsAnswer): string {
    return encodeOpenAiEmbeddings(answer, this.request.model, this.request.encoding)
  }
}

/** POST /v1/embeddings: decode, relay, encode (or forward bytes when the upstream speaks OpenAI's embeddings too). */
export const openAiEmbeddings: ClientProtocol = {
  operation: embeddingsOperation,
  name: 'openai-embeddings',
  readSecret: bearerToken,
  decode: (body, text) => new OpenAiEmbeddingsExchange(decodeOpenAiEmbeddingsRequest(body), text, body),
  answerHeaders: (requestId, rateLimit) => encodeOpenAiRateLimitHeaders(rateLimit, { 'x-request-id': requestId }),
  renderError: openAiErrorResponse,
  wholeContentType: 'application/json',
}
