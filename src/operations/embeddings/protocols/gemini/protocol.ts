import type { Target } from '../../../../core/provider.ts'
import { geminiErrorResponse } from '../../../../protocols/gemini/error-response.ts'
import { modelPathOf, splitModelPath, unknownMethod } from '../../../../protocols/gemini/model-path.ts'
import { readGeminiSecret } from '../../../../protocols/gemini/read-secret.ts'
import type { ClientProtocol, Exchange } from '../../../../protocols/shared/client-protocol.ts'
import { refuseDuplicateKeys } from '../../../../protocols/shared/duplicate-keys.ts'
import { isObject, type Json } from '../../../../protocols/shared/validate.ts'
import type { EmbeddingsAnswer, EmbeddingsRequest } from '../../core/ir.ts'
import { embeddingsOperation } from '../../relay/operation.ts'
import { decodeGeminiEmbeddingsRequest } from './decode-request.ts'
import { encodeGeminiEmbeddings } from './encode-response.ts'

type Method = 'embedContent' | 'batchEmbedContents'

/** One embedContent or batchEmbedContents request: its IR, and its own body for a Gemini upstream. */
class GeminiEmbeddingsExchange implements Exchange {
  constructor(
    readonly request: EmbeddingsRequest,
    private readonly text: string,
    private readonly body: Json,
    private readonly method: Method,
  ) {}

  /** The client's own body to the upstream's model: the model named in the body (each request's, in a batch) too. */
  forward(target: Target) {
    refuseDuplicateKeys(this.text)
    const model = `models/${target.upstreamModel.replace(/^models\//, '')}`
    const renamed = (request: Json) => (request.model === undefined || request.model === model ? request : { ...request, model })
    const body =
      this.method === 'embedContent'
        ? renamed(this.body)
        : { ...this.body, requests: (this.body.requests as unknown[]).map((request) => (isObject(request) ? renamed(request) : request)) }
    return { path: `/v1beta/${model}:${this.method}`, body: JSON.stringify(body), stream: false }
  }

  encodeWhole(answer: EmbeddingsAnswer): string {
    return encodeGeminiEmbeddings(answer, this.method === 'batchEmbedContents')
  }
}

/** POST …/models/{model}:embedContent and …:batchEmbedContents (under /v1beta, and /v1 for a Google key). */
export const geminiEmbeddings: ClientProtocol = {
  operation: embeddingsOperation,
  name: 'gemini-embeddings',
  readSecret: readGeminiSecret,
  decode(body, text, request) {
    const { model, method } = splitModelPath(modelPathOf(new URL(request.url)))
    if (method !== 'embedContent' && method !== 'batchEmbedContents') throw unknownMethod(method)
    return new GeminiEmbeddingsExchange(decodeGeminiEmbeddingsRequest(body, model, method === 'batchEmbedContents'), text, body, method)
  },
  answerHeaders: (requestId) => ({ 'x-request-id': requestId }),
  renderError: geminiErrorResponse,
  wholeContentType: 'application/json; charset=UTF-8',
}
