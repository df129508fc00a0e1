import { Elysia } from 'elysia'
import { GatewayError } from '../../core/errors.ts'
import { sseHeaders } from '../../core/sse.ts'
import { newRequestId } from '../../core/ids.ts'
import { authenticate, bearerToken } from '../../edge/auth.ts'
import { jsonResponse, streamResponse } from '../../edge/respond.ts'
import type { Services } from '../../edge/services.ts'
import { encodeOpenAiRateLimitHeaders, openAiErrorResponse } from '../openai-chat/error-response.ts'
import { parseJsonBody } from '../shared/validate.ts'
import { decodeResponsesRequest } from './decode-request.ts'
import { encodeResponsesResponse } from './encode-response.ts'
import { encodeResponsesStream } from './encode-stream.ts'
import { responseNotStored } from './stateless.ts'
import { AbortScope } from '../../relay/abort-scope.ts'

export const protocolName = 'openai-responses'

/**
 * POST /v1/responses: decode, relay through the IR, encode. No upstream speaks Responses here, so there is no
 * passthrough path: every provider (OpenAI-compatible, mock, others) is reached through the IR.
 */
export async function createResponse(services: Services, request: Request): Promise<Response> {
  const requestId = newRequestId()
  try {
    const key = await authenticate(services.keys, bearerToken(request))
    const text = await request.text()
    const { request: chat, context } = decodeResponsesRequest(parseJsonBody(text))
    const scope = AbortScope.of(request)
    const result = await services.relay.run({
      key, protocol: protocolName, requestId, request: chat,
      inputBound: Buffer.byteLength(text),
      scope,
    })
    const headers = { 'x-request-id': requestId, ...encodeOpenAiRateLimitHeaders(result.rateLimit) }
    if (result.kind === 'response') return jsonResponse(encodeResponsesResponse(result.response, context), 200, headers)
    if (result.kind === 'stream') return streamResponse(encodeResponsesStream(result.events, context), { ...sseHeaders, ...headers }, () => scope.end())
    throw new GatewayError('internal', 'A passthrough result reached the Responses protocol')
  } catch (error) {
    return openAiErrorResponse(error, requestId)
  }
}

/** Retrieval and deletion need stored responses; say plainly that there are none, after checking the key. */
async function refuseRetrieval(services: Services, request: Request, id: string): Promise<Response> {
  try {
    await authenticate(services.keys, bearerToken(request))
    throw responseNotStored(id)
  } catch (error) {
    return openAiErrorResponse(error)
  }
}

export function openAiResponsesRoutes(services: Services) {
  return new Elysia({ name: 'protocol-openai-responses' })
    .post('/v1/responses', ({ request }) => createResponse(services, request), { parse: 'none' })
    .get('/v1/responses/:id', ({ request, params }) => refuseRetrieval(services, request, params.id))
    .delete('/v1/responses/:id', ({ request, params }) => refuseRetrieval(services, request, params.id))
}
