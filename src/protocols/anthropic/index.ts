import { Elysia } from 'elysia'
import { promptText } from '../../core/estimate.ts'
import { newRequestId } from '../../core/ids.ts'
import type { Services } from '../../edge/services.ts'
import { relayResponse, type RelayEncoders } from '../shared/relay-response.ts'
import type { ChatRequest, ChatResponse, StreamEvent } from '../../core/ir.ts'
import { parseJsonBody } from '../shared/validate.ts'
import { authenticateAnthropic } from './authenticate.ts'
import { countMessageTokens } from './count-tokens.ts'
import { decodeMessagesRequest } from './decode-request.ts'
import { formatErrorEvent } from './encode-error.ts'
import { encodeMessageResponse } from './encode-response.ts'
import { encodeAnthropicStream } from './encode-stream.ts'
import { anthropicErrorResponse } from './error-response.ts'
import { encodeAnthropicRateLimitHeaders } from './rate-limit-headers.ts'
import { listAnthropicModels, retrieveAnthropicModel } from './models.ts'
import { buildMessagesForward } from './passthrough.ts'
import { AbortScope } from '../../relay/abort-scope.ts'

export const protocolName = 'anthropic'

/** POST /v1/messages: decode, relay, encode (or forward bytes when the upstream speaks Anthropic too). */
export async function createMessage(services: Services, request: Request): Promise<Response> {
  const requestId = newRequestId()
  try {
    // Read the body before anything can fail, so a keep-alive connection is left clean for the next request.
    const text = await request.text()
    const key = await authenticateAnthropic(services.keys, request)
    const body = parseJsonBody(text)
    const chat = decodeMessagesRequest(body)
    const scope = AbortScope.of(request)
    const result = await services.relay.run({
      key, protocol: protocolName, requestId, request: chat,
      inputBound: Buffer.byteLength(text),
      scope,
      forward: (target) => buildMessagesForward(text, body, target, request),
      encodeRawError: (error) => formatErrorEvent(error, requestId),
    })
    return relayResponse(result, { 'request-id': requestId, ...encodeAnthropicRateLimitHeaders(result.rateLimit) }, new MessagesEncoders(chat, requestId, scope))
  } catch (error) {
    return anthropicErrorResponse(error, requestId)
  }
}

class MessagesEncoders implements RelayEncoders {
  constructor(private readonly chat: ChatRequest, private readonly requestId: string, private readonly scope: AbortScope) {}

  encodeResponse(response: ChatResponse) {
    return encodeMessageResponse(response, this.chat.model)
  }

  encodeStream(events: AsyncIterable<StreamEvent>) {
    // message_start's input count is replaced by the exact one at message_delta: a rough guess spares the
    // tokenizer (tens of milliseconds on a Claude Code prompt) on the way to the first byte.
    const chat = this.chat
    return encodeAnthropicStream(events, chat.model, () => Math.ceil(promptText(chat).length / 4), this.requestId)
  }

  onCancel() {
    this.scope.end()
  }
}

/**
 * Anthropic Messages, as its SDKs and Claude Code call it (`?beta=true` included: the query does not change the
 * route). Claude Code also sends `HEAD /api/hello` to warm the connection; it ignores the answer, but a 200 keeps
 * it out of the logs as a 404.
 */
export function anthropicRoutes(services: Services) {
  return new Elysia({ name: 'protocol-anthropic' })
    .post('/v1/messages', ({ request }) => createMessage(services, request), { parse: 'none' })
    .post('/v1/messages/count_tokens', ({ request }) => countMessageTokens(services, request), { parse: 'none' })
    .head('/api/hello', () => new Response(null, { status: 200 }))
    .get('/api/hello', () => new Response(null, { status: 200 }))
    // GET /v1/models is OpenAI's route too; an Anthropic client (always sending anthropic-version, which OpenAI's never
    // do) is answered before routing, by a global hook, as the Gemini plugin does for its clients.
    .onRequest(({ request }) => {
      if (request.method !== 'GET' || !request.headers.has('anthropic-version')) return
      const path = new URL(request.url).pathname
      if (path === '/v1/models') return listAnthropicModels(services, request)
      if (path.startsWith('/v1/models/')) return retrieveAnthropicModel(services, request, path.slice('/v1/models/'.length))
    })
}
