import { defineProtocol } from '../../../protocols/shared/define-protocol.ts'
import type { ProtocolRoutes } from '../../../protocols/shared/route-table.ts'
import { geminiEmbeddings } from './gemini/protocol.ts'
import { openAiEmbeddings } from './openai/protocol.ts'

/** POST /v1/embeddings (OpenAI's clients). */
const createEmbeddings = defineProtocol(openAiEmbeddings)

/** POST …/models/{model}:embedContent and :batchEmbedContents: Gemini's POST route sends those methods here. */
export const embedContents = defineProtocol(geminiEmbeddings)

export const embeddingsRoutes: ProtocolRoutes = (services) => ({
  '/v1/embeddings': { POST: (request) => createEmbeddings(services, request) },
})
