import { defineEndpoint } from '../shared/define-endpoint.ts'
import { defineProtocol } from '../shared/define-protocol.ts'
import type { ProtocolRoutes } from '../shared/route-table.ts'
import { listOpenAiModels } from './models.ts'
import { openAiChat } from '../../operations/chat/protocols/openai-chat/protocol.ts'

const completeChat = defineProtocol(openAiChat)

/** GET /v1/models for OpenAI clients (routes.ts picks the protocol by the request's headers). */
export const serveOpenAiModels = defineEndpoint(openAiChat, listOpenAiModels)

export const openAiChatRoutes: ProtocolRoutes = (services) => ({
  '/v1/chat/completions': { POST: (request) => completeChat(services, request) },
})
