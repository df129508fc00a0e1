import { mockRelevance } from '../../src/operations/rerank/providers/mock.ts'
import { jsonReply, startUpstream, type TestUpstream } from './upstream.ts'

/**
 * A loopback vLLM-shaped rerank server (`POST /v1/rerank`): the mock's relevance for each document, best first, cut
 * to `top_n`, each result with its document, and `usage.total_tokens` of a token per character of each
 * query-document pair (so bills are exact). `noUsage` leaves the report out; `failNext` fails the next calls. At
 * `POST /rerank` with `texts` it answers as text-embeddings-inference does: a bare list of `{ index, score }`, all of
 * them (TEI has no top_n), no usage.
 */
export interface RerankUpstream {
  server: TestUpstream
  failNext: number[]
  noUsage: boolean
  /** Wait this long before answering (a client may leave meanwhile). */
  delayMs: number
  stop(): Promise<void>
}

/** What the loopback server reports: a token per character of each pair (the query is read once per document). */
export function loopbackRerankTokens(query: string, documents: string[]): number {
  return documents.reduce((sum, document) => sum + query.length + document.length, 0)
}

export function startRerankUpstream(): RerankUpstream {
  const upstream: RerankUpstream = {
    failNext: [],
    noUsage: false,
    delayMs: 0,
    server: startUpstream(async (request) => {
      await Bun.sleep(upstream.delayMs)
      const status = upstream.failNext.shift()
      if (status !== undefined) return jsonReply({ error: { message: `failing on purpose (${status})` } }, status)
      if (request.path === '/rerank' && request.body.texts) {
        const { query, texts } = request.body as { query: string; texts: string[] }
        return jsonReply(
          texts.map((text, index) => ({ index, score: mockRelevance(query, text) })).sort((a, b) => b.score - a.score || a.index - b.index),
        )
      }
      const { query, documents, top_n: topN } = request.body as { query: string; documents: string[]; top_n?: number }
      const results = documents
        .map((text, index) => ({ index, document: { text }, relevance_score: mockRelevance(query, text) }))
        .sort((a, b) => b.relevance_score - a.relevance_score || a.index - b.index)
        .slice(0, topN)
      const body: Record<string, unknown> = { id: 'rerank-1', model: (request.body as { model: string }).model, results }
      if (!upstream.noUsage) body.usage = { total_tokens: loopbackRerankTokens(query, documents) }
      return jsonReply(body)
    }),
    stop: async () => upstream.server.stop(),
  }
  return upstream
}

/** Rerank models per search unit and per token, on the loopback server and the mock. */
export function rerankConfig(upstream: RerankUpstream) {
  return {
    providers: [
      { name: 'mock', type: 'mock' },
      { name: 'vllm', type: 'openai', base_url: `${upstream.server.url}/v1`, api_key: 'sk-upstream' },
      { name: 'tei', type: 'openai', base_url: upstream.server.url, rerank_api: 'tei' },
    ],
    models: [
      { id: 'mock-1', provider: 'mock', price: { input: 1, output: 2 } },
      { id: 'rerank-vllm', kind: 'rerank', provider: 'vllm', upstream_model: 'BAAI/bge-reranker-v2-m3', price: { input: '0.0201' } },
      { id: 'rerank-mock', kind: 'rerank', provider: 'mock', price: { input: '0.0201' } },
      { id: 'rerank-units', kind: 'rerank', provider: 'vllm', upstream_model: 'BAAI/bge-reranker-v2-m3', price: { search_unit: '0.002' } },
      { id: 'rerank-mock-units', kind: 'rerank', provider: 'mock', price: { search_unit: '0.002' }, fallbacks: [] },
      { id: 'rerank-tei', kind: 'rerank', provider: 'tei', price: { input: '0.0201' } },
    ],
  }
}
