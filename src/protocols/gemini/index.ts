import type { Services } from '../../edge/services.ts'
import { defineEndpoint } from '../shared/define-endpoint.ts'
import { defineProtocol } from '../shared/define-protocol.ts'
import type { ProtocolRoutes } from '../shared/route-table.ts'
import type { ProtocolHandler } from '../shared/client-protocol.ts'
import { countGeminiTokens } from '../../operations/chat/protocols/gemini/count-tokens.ts'
import { answerGeminiModels } from './models.ts'
import { geminiGenerate } from '../../operations/chat/protocols/gemini/protocol.ts'
import { answerGeminiBatch, createGeminiBatch, listGeminiBatches } from './batches.ts'
import { embedContents } from '../../operations/embeddings/protocols/routes.ts'

export const generateContent = defineProtocol(geminiGenerate)

const countTokens = defineEndpoint(geminiGenerate, countGeminiTokens)

/** GET …/models(/{model}) for Gemini clients (under /v1, routes.ts picks the protocol by the request's headers). */
export const serveGeminiModels = defineEndpoint(geminiGenerate, answerGeminiModels)

/** The methods with a handler of their own, by the path's end; anything else is the generate handler's. */
const methods: [suffix: string, handler: ProtocolHandler][] = [
  [':countTokens', countTokens],
  [':batchGenerateContent', createGeminiBatch],
  [':embedContent', embedContents],
  [':batchEmbedContents', embedContents],
]

/**
 * POST …/models/{model}:{method}. Told apart here by the path's end alone (nothing that can fail); the generate
 * handler reads the rest, an unknown method included, once the body is read and the key checked.
 */
function callMethod(services: Services, request: Request): Promise<Response> {
  const url = request.url
  const query = url.indexOf('?')
  const path = query === -1 ? url : url.slice(0, query)
  for (const [suffix, handler] of methods) if (path.endsWith(suffix)) return handler(services, request)
  return generateContent(services, request)
}

/** Gemini clients: the CLI speaks /v1beta, the @google/genai SDK (3.x) defaults to /v1 (routes.ts shares its GETs). */
export const geminiRoutes: ProtocolRoutes = (services) => ({
  '/v1beta/models': { GET: (request) => serveGeminiModels(services, request) },
  '/v1beta/models/*': { GET: (request) => serveGeminiModels(services, request), POST: (request) => callMethod(services, request) },
  '/v1/models/*': { POST: (request) => callMethod(services, request) },
  // Under /v1 the batch paths are OpenAI's too: batch-routes.ts sends Gemini clients' requests there to these.
  '/v1beta/batches': { GET: (request) => listGeminiBatches(services, request) },
  '/v1beta/batches/*': {
    GET: (request) => answerGeminiBatch(services, request),
    POST: (request) => answerGeminiBatch(services, request),
    DELETE: (request) => answerGeminiBatch(services, request),
  },
})
