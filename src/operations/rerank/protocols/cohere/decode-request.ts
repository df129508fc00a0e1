import { invalidRequest } from '../../../../core/errors.ts'
import { isObject, type Json, optionalBoolean, optionalNumber, requireArray, requireString } from '../../../../protocols/shared/validate.ts'
import type { RerankRequest } from '../../core/ir.ts'

/** Cohere's own limit on documents per request (vLLM has none; Jina's is larger): a bound on one request's hold. */
const maxDocuments = 10_000

/** A document: a string, or an object with its `text` (Cohere v1 and Jina take both). */
function readDocument(value: unknown, index: number): string {
  const field = `documents[${index}]`
  if (typeof value === 'string') return value
  if (isObject(value) && typeof value.text === 'string') return value.text
  throw invalidRequest(`Invalid value for '${field}': expected a string or an object with a 'text' string.`, field)
}

/**
 * A `/v1/rerank` body in the shape Cohere (v1 and v2), Jina and vLLM share → the IR, refusing what they refuse.
 * `return_documents` defaults to true (Jina's, vLLM's and LiteLLM's default; Cohere's clients send it when they want it).
 */
export function decodeRerankRequest(body: Json): RerankRequest {
  if (body.model === undefined) throw invalidRequest("Missing required parameter: 'model'.", 'model')
  const model = requireString(body.model, 'model')
  if (body.query === undefined) throw invalidRequest("Missing required parameter: 'query'.", 'query')
  const query = requireString(body.query, 'query')
  if (query === '') throw invalidRequest("Invalid value for 'query': it cannot be empty.", 'query')
  if (body.documents === undefined) throw invalidRequest("Missing required parameter: 'documents'.", 'documents')
  const list = requireArray(body.documents, 'documents')
  if (list.length === 0) throw invalidRequest("Invalid value for 'documents': it must hold at least one document.", 'documents')
  if (list.length > maxDocuments)
    throw invalidRequest(`Invalid value for 'documents': at most ${maxDocuments} documents are allowed, got ${list.length}.`, 'documents')
  // Cohere v2 and Jina name it top_n; Voyage top_k.
  const topN = optionalNumber(body.top_n ?? body.top_k, body.top_n !== undefined ? 'top_n' : 'top_k', { min: 1, integer: true })
  return {
    model,
    stream: false,
    query,
    documents: list.map(readDocument),
    topN: topN === undefined ? undefined : Math.min(topN, list.length),
    returnDocuments: optionalBoolean(body.return_documents, 'return_documents') ?? true,
  }
}
