import { ceilPerMillion, type Price } from '../../../core/pricing.ts'
import type { Usage } from '../../../core/usage.ts'
import { type RerankRequest, searchUnitsOf } from './ir.ts'

/** Tokens the upstream's template adds around each query-document pair (special tokens, separators), at most. */
const pairOverheadTokens = 16

/**
 * The most input tokens a request can be: a reranker reads the query once per document, so each pair is the query's
 * bytes and the document's (a byte-level tokenizer never makes more tokens than bytes) and its template's tokens.
 */
export function inputTokensAtMost(request: RerankRequest): number {
  const query = Buffer.byteLength(request.query)
  let total = 0
  for (const document of request.documents) total += query + Buffer.byteLength(document) + pairOverheadTokens
  return total
}

/** A token per four characters of each pair, without the tokenizer: a key's tpm at admission. */
export function roughInputTokens(request: RerankRequest): number {
  let total = 0
  for (const document of request.documents) total += Math.ceil((request.query.length + document.length) / 4)
  return total
}

/** The usage a rerank is billed at when its upstream reported no tokens: the tokenizer's count of every pair, estimated. */
export function estimatedUsage(request: RerankRequest, inputTokens: number): Usage {
  return {
    inputTokens,
    cachedInputTokens: 0,
    cacheWriteTokens: 0,
    outputTokens: 0,
    reasoningTokens: 0,
    units: searchUnitsOf(request),
    estimated: true,
  }
}

/** Search units at their price, or input tokens at theirs: integers only, rounded up once. */
export function rerankCost(usage: Usage, price: Price): number {
  if (price.searchUnit !== undefined) return (usage.units ?? 0) * price.searchUnit
  return ceilPerMillion([usage.inputTokens, price.input])
}
