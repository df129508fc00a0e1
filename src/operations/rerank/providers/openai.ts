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
    if (typeof result?.index !== 'number' || typeof result.relevance_score !== 'number') throw malformed('holds a result without an index and a relevance_score')
    return { index: result.index, relevanceScore: result.relevance_score }
  })
  const tokens = reportedCount(answer.usage?.prompt_tokens ?? answer.usage?.total_tokens)
  const searchUnits = answer.meta?.billed_units?.search_units
  const usage = checkedUsage({ inputTokens: tokens, cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens: 0, reasoningTokens: 0 })
  if (usage && isTokenCount(searchUnits)) usage.units = searchUnits
  return { results, usage }
}

/** Rerank toward an OpenAI-kind upstream that serves it (vLLM, and servers of the same shape). */
export function createOpenAiRerankUpstream(transport: Transport): RerankUpstream {
  return {
    async rerank(request, target, attempt, traceparent) {
      const response = await transport.send(encodeRerank(request, target), attempt, traceparent)
      return decodeRerank(await transport.readJson(response, attempt))
    },
  }
}
