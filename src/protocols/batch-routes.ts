import type { Services } from '../edge/services.ts'
import { answerOpenAiBatch, createOpenAiBatch, listOpenAiBatches } from './openai-chat/batches.ts'
import type { RouteTable } from './shared/route-table.ts'
import { answerGeminiBatch, listGeminiBatches } from './gemini/batches.ts'
import { clientShapeOf } from './shared/client-shape.ts'

const isGeminiRequest = (request: Request) => clientShapeOf(request) === 'gemini'

/**
 * /v1/batches is OpenAI's Batch API and, for @google/genai (which defaults to /v1), Gemini's: a request that
 * authenticates the Gemini way (x-goog-api-key or ?key=) gets Gemini's shapes (gemini/read-secret.ts isGeminiRequest).
 */
export function batchRoutes(services: Services): RouteTable {
  return {
    '/v1/batches': {
      POST: (request) => createOpenAiBatch(services, request),
      GET: (request) => (isGeminiRequest(request) ? listGeminiBatches : listOpenAiBatches)(services, request),
    },
    '/v1/batches/*': {
      GET: (request) => (isGeminiRequest(request) ? answerGeminiBatch : answerOpenAiBatch)(services, request),
      POST: (request) => (isGeminiRequest(request) ? answerGeminiBatch : answerOpenAiBatch)(services, request),
      DELETE: (request) => (isGeminiRequest(request) ? answerGeminiBatch : answerOpenAiBatch)(services, request),
    },
  }
}
