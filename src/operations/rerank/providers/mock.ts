import type { RerankAnswer, RerankRequest } from '../core/ir.ts'
import type { RerankUpstream } from '../core/upstream.ts'

const wordsOf = (text: string) => new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])

/**
 * A deterministic relevance: the share of the query's words the document has (0 to 1), so a test can tell which
 * document should come first.
 */
export function mockRelevance(query: string, document: string): number {
  const asked = wordsOf(query)
  if (asked.size === 0) return 0
  const found = wordsOf(document)
  let shared = 0
  for (const word of asked) if (found.has(word)) shared++
  return shared / asked.size
}

/** A token per four characters of each query-document pair, as the mock's other operations count. */
export function mockRerankTokens(query: string, documents: string[]): number {
  return documents.reduce((sum, document) => sum + Math.ceil((query.length + document.length) / 4), 0)
}

/** The built-in provider's rerank: `mockRelevance` for every document, best first (ties in request order), usage reported. */
export function createMockRerankUpstream(): RerankUpstream {
  return {
    async rerank(request: RerankRequest): Promise<RerankAnswer> {
      const results = request.documents
        .map((document, index) => ({ index, relevanceScore: mockRelevance(request.query, document) }))
        .sort((a, b) => b.relevanceScore - a.relevanceScore || a.index - b.index)
        .slice(0, request.topN)
      const inputTokens = mockRerankTokens(request.query, request.documents)
      return { results, usage: { inputTokens, cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens: 0, reasoningTokens: 0 } }
    },
  }
}
