import { defineEndpoint } from '../shared/define-endpoint.ts'
import { defineProtocol } from '../shared/define-protocol.ts'
import type { ProtocolRoutes } from '../shared/route-table.ts'
import { countMessageTokens } from '../../operations/chat/protocols/anthropic/count-tokens.ts'
import { answerAnthropicModels } from './models.ts'
import { anthropicMessages } from '../../operations/chat/protocols/anthropic/protocol.ts'

const createMessage = defineProtocol(anthropicMessages)

const countTokens = defineEndpoint(anthropicMessages, countMessageTokens)

/** GET /v1/models(/{id}) for Anthropic clients (routes.ts picks the protocol by the request's headers). */
export const serveAnthropicModels = defineEndpoint(anthropicMessages, answerAnthropicModels)

const hello = () => new Response(null, { status: 200 })

/**
 * Anthropic Messages, as its SDKs and Claude Code call it (`?beta=true` included: the query does not change the
 * route). Claude Code also sends `HEAD /api/hello` to warm the connection; it ignores the answer, but a 200 keeps
 * it out of the logs as a 404.
 */
export const anthropicRoutes: ProtocolRoutes = (services) => ({
  '/v1/messages': { POST: (request) => createMessage(services, request) },
  '/v1/messages/count_tokens': { POST: (request) => countTokens(services, request) },
  '/api/hello': { GET: hello, HEAD: hello },
})
