import type { Target } from '../../../core/provider.ts'
import { GatewayError } from '../../../core/errors.ts'
import { checkedUsage, isTokenCount, reportedCount } from '../../../core/usage.ts'
import type { Transport } from '../../../providers/http.ts'
import type { RerankAnswer, RerankRequest } from '../core/ir.ts'
import type { RerankUpstream } from '../core/upstream.ts'

interface RerankResponse {
  results?: { index?: unknown; relevance_score?: unknown }[]
  usage?: { total_tokens?: unknown; prompt_tokens?: unknown } | null
  meta?: { billed_units?: { search_units?: unknown } }
}

function malformed(what: string): GatewayError {
  return new GatewayError('upstream', `Upstream sent a rerank answer that ${what}`, { code: 'upstream_malformed' })
}

/**
 * IR → the body vLLM, Jina and Cohere (v1) share, to `/rerank` below the provider's base URL (vLLM serves it at
 * `/rerank`, `/v1/rerank` and `/v2/rerank`: a base URL ending in `/v1` reaches the second). The documents' text is
 * not asked back: the gateway has it.
 */
function encodeRerank(request: RerankRequest, target: Target): { path: string; body: string } {
  const body: Record<string, unknown> = { model: target.upstreamModel, query: request.query, documents: request.documents }
  if (request.topN !== undefined) body.top_n = request.topN
  return { path: '/rerank', body: JSON.stringify(body) }
}

/** A rerank answer → IR: each result's index and score; tokens (`usage`) and Cohere's search units when reported. */
function decodeRerank(body: unknown): RerankAnswer {
  const answer = (body ?? {}) as RerankResponse
  if (!Array.isArray(answer.results)) throw malformed('has no results')
  const results = answer.results.map((result) => {
    if (typeof result?.index !== 'number' || typeof result.relevance_score !== 'number')
      throw malformed('holds a result without an index and a relevance_score')
    return { index: result.index, relevanceScore: result.relevance_score }
  })
  const tokens = reportedCount(answer.usage?.prompt_tokens ?? answer.usage?.total_tokens)
  const searchUnits = answer.meta?.billed_units?.search_units
  const usage = checkedUsage({ inputTokens: tokens, cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens: 0, reasoningTokens: 0 })
  if (usage && isTokenCount(searchUnits)) usage.units = searchUnits
  return { results, usage }
}

/**
 * IR → text-embeddings-inference's `/rerank` body: `texts`, no model (a TEI server serves one), scores as the model
 * gives them (`raw_scores: false`), no text back. TEI has no `top_n`: the gateway cuts the ranking itself.
 */
function encodeTeiRerank(request: RerankRequest): { path: string; body: string } {
  return {
    path: '/rerank',
    body: JSON.stringify({ query: request.query, texts: request.documents, raw_scores: false, return_text: false }),
  }
}

/** TEI's answer, a list of `{ index, score }` (best first); it reports no usage in its body. */
function decodeTeiRerank(body: unknown): RerankAnswer {
  if (!Array.isArray(body)) throw malformed('is not a list of scores')
  const results = body.map((result: { index?: unknown; score?: unknown }) => {
    if (typeof result?.index !== 'number' || typeof result.score !== 'number')
      throw malformed('holds a result without an index and a score')
    return { index: result.index, relevanceScore: result.score }
  })
  return { results }
}

/** Rerank toward an OpenAI-kind upstream that serves it: vLLM (and servers of its shape), or TEI (`rerank_api: tei`). */
export function createOpenAiRerankUpstream(transport: Transport): RerankUpstream {
  const tei = transport.config.rerankApi === 'tei'
  const decoder = { decodeResponse: tei ? decodeTeiRerank : decodeRerank }
  return {
    async rerank(request, target, attempt, traceparent) {
      return transport.answer(tei ? encodeTeiRerank(request) : encodeRerank(request, target), decoder, attempt, traceparent)
    },
  }
}
