import { Elysia } from 'elysia'
import { newRequestId } from '../../core/ids.ts'
import { authenticate, bearerToken } from '../../edge/auth.ts'
import type { Services } from '../../edge/services.ts'
import { relayResponse, type RelayEncoders } from '../shared/relay-response.ts'
import type { ChatResponse, StreamEvent } from '../../core/ir.ts'
import { isObject, parseJsonBody } from '../shared/validate.ts'
import { decodeChatRequest } from './decode-request.ts'
import { encodeOpenAiRateLimitHeaders, openAiErrorResponse } from './error-response.ts'
import { encodeChatResponse } from './encode-response.ts'
import { encodeChatStream } from './encode-stream.ts'
import { buildChatForward, encodeRawChatError, isUsageChunk } from './passthrough.ts'
import { listOpenAiModels } from './models.ts'
import { AbortScope } from '../../relay/abort-scope.ts'

export const protocolName = 'openai-chat'

/** POST /v1/chat/completions: decode, relay, encode (or forward bytes when the upstream speaks the same protocol). */
export async function completeChat(services: Services, request: Request): Promise<Response> {
  const requestId = newRequestId()
  try {
    // Read the body before anything can fail, so a keep-alive connection is left clean for the next request.
    const text = await request.text()
    const key = await authenticate(services.keys, bearerToken(request))
    const body = parseJsonBody(text)
    const chat = decodeChatRequest(body)
    const includeUsage = isObject(body.stream_options) && body.stream_options.include_usage === true
    const scope = AbortScope.of(request)
    const result = await services.relay.run({
      key, protocol: protocolName, requestId, request: chat,
      inputBound: Buffer.byteLength(text),
      scope,
      forward: (target) => buildChatForward(text, body, target),
      dropRawEvent: includeUsage ? undefined : isUsageChunk,
      encodeRawError: encodeRawChatError,
    })
    return relayResponse(result, { 'x-request-id': requestId, ...encodeOpenAiRateLimitHeaders(result.rateLimit) }, new ChatEncoders(chat.model, includeUsage, scope))
  } catch (error) {
    return openAiErrorResponse(error, requestId)
  }
}

class ChatEncoders implements RelayEncoders {
  constructor(private readonly model: string, private readonly includeUsage: boolean, private readonly scope: AbortScope) {}

  encodeResponse(response: ChatResponse) {
    return encodeChatResponse(response, this.model)
  }

  encodeStream(events: AsyncIterable<StreamEvent>) {
    return encodeChatStream(events, this.model, this.includeUsage)
  }

  onCancel() {
    this.scope.end()
  }
}

export function openAiChatRoutes(services: Services) {
  return new Elysia({ name: 'protocol-openai-chat' })
    .post('/v1/chat/completions', ({ request }) => completeChat(services, request), { parse: 'none' })
    .get('/v1/models', ({ request }) => listOpenAiModels(services, request))
}
