import { defineProtocol } from '../../../protocols/shared/define-protocol.ts'
import type { ProtocolRoutes } from '../../../protocols/shared/route-table.ts'
import { rerankProtocol } from './cohere/protocol.ts'

/** POST /v1/rerank (Cohere's, Jina's and vLLM's clients). */
export const rerank = defineProtocol(rerankProtocol)

export const rerankRoutes: ProtocolRoutes = (services) => ({
  '/v1/rerank': { POST: (request) => rerank(services, request) },
})
