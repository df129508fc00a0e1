import type { OperationRequest } from '../../../core/operation.ts'
import type { Usage } from '../../../core/usage.ts'

/**
 * Rerank's internal format (IR): the request Cohere, Jina and vLLM share (`/v1/rerank`), and the ranked answer every
 * upstream kind decodes into. No vendor JSON crosses this line.
 */
export interface RerankRequest extends OperationRequest {
  readonly model: string
  /** Reranking is never streamed. */
  stream: false
  query: string
  /** In the client's order: a result's `index` is its place here. */
  documents: string[]
  /** How many results the client wants, best first (absent: every document). */
  topN?: number
  /** Whether each result carries its document's text. */
  returnDocuments: boolean
}

export interface RerankResult {
  /** The document's place in the request. */
  index: number
  relevanceScore: number
}

export interface RerankAnswer {
  /** Best first, at most `topN`. */
  results: RerankResult[]
  /** The upstream's report: tokens (vLLM, Jina) and, where it bills them, search units (Cohere). */
  usage?: Usage
}

/** Cohere's unit: one query with up to 100 documents. */
const documentsPerSearchUnit = 100

/** The search units a request is: a query with up to 100 documents is one (Cohere's definition). */
export function searchUnitsOf(request: RerankRequest): number {
  return Math.ceil(request.documents.length / documentsPerSearchUnit)
}
