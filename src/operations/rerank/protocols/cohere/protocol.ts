import { randomUUID } from 'node:crypto'
import { bearerToken } from '../../../../edge/auth.ts'
import { encodeOpenAiRateLimitHeaders, openAiErrorResponse } from '../../../../protocols/openai-chat/error-response.ts'
import type { ClientProtocol, Exchange } from '../../../../protocols/shared/client-protocol.ts'
import type { RerankAnswer, RerankRequest } from '../../core/ir.ts'
import { rerankOperation } from '../../relay/operation.ts'
import { decodeRerankRequest } from './decode-request.ts'

/** One `/v1/rerank` request: its IR, and its answer in the shape Cohere, Jina and vLLM share. */
class RerankExchange implements Exchange {
  constructor(readonly request: RerankRequest) {}

  /**
   * Results best first, each with its index, score and (when asked) its document; `usage.total_tokens` as Jina and
   * vLLM write it, and `meta.billed_units.search_units` as Cohere does — both what was billed.
   */
  encodeWhole(answer: RerankAnswer): string {
    const { request } = this
    const results = answer.results.map((result) =>
      request.returnDocuments
        ? { index: result.index, relevance_score: result.relevanceScore, document: { text: request.documents[result.index] } }
        : { index: result.index, relevance_score: result.relevanceScore },
    )
    const tokens = answer.usage?.inputTokens ?? 0
    return JSON.stringify({
      id: randomUUID(),
      model: request.model,
      results,
      usage: { total_tokens: tokens, prompt_tokens: tokens },
      meta: { billed_units: { search_units: answer.usage?.units ?? 0 } },
    })
  }
}

/** POST /v1/rerank: a bearer key, errors in OpenAI's shape (what every OpenAI-compatible rerank server answers). */
export const rerankProtocol: ClientProtocol = {
  operation: rerankOperation,
  name: 'rerank',
  readSecret: bearerToken,
  decode: (body) => new RerankExchange(decodeRerankRequest(body)),
  answerHeaders: (requestId, rateLimit) => encodeOpenAiRateLimitHeaders(rateLimit, { 'x-request-id': requestId }),
  renderError: openAiErrorResponse,
  wholeContentType: 'application/json',
}
