import type { ChatRequest, ChatResponse, StreamEvent } from '../../core/ir.ts'
import { bearerToken } from '../../../../edge/auth.ts'
import { encodeOpenAiRateLimitHeaders, openAiErrorResponse } from '../../../../protocols/openai-chat/error-response.ts'
import type { ClientProtocol, Exchange } from '../../../../protocols/shared/client-protocol.ts'
import { decodeResponsesRequest, type ResponsesContext } from './decode-request.ts'
import { encodeResponsesResponse } from './encode-response.ts'
import { encodeResponsesStream } from './encode-stream.ts'
import { chatOperation } from '../../relay/operation.ts'

/**
 * One Responses request. No upstream speaks Responses here, so there is no passthrough: every provider
 * (OpenAI-compatible, mock, others) is reached through the IR, and the exchange offers no `forward`.
 */
class ResponsesExchange implements Exchange {
  constructor(
    readonly request: ChatRequest,
    private readonly context: ResponsesContext,
  ) {}

  encodeWhole(response: ChatResponse): string {
    return JSON.stringify(encodeResponsesResponse(response, this.context))
  }

  encodeStream(events: AsyncIterable<StreamEvent>) {
    return encodeResponsesStream(events, this.context)
  }
}

/** POST /v1/responses: decode, relay through the IR, encode. */
export const openAiResponses: ClientProtocol = {
  operation: chatOperation,
  name: 'openai-responses',
  readSecret: bearerToken,
  decode(body) {
    const { request, context } = decodeResponsesRequest(body)
    return new ResponsesExchange(request, context)
  },
  answerHeaders: (requestId, rateLimit) => encodeOpenAiRateLimitHeaders(rateLimit, { 'x-request-id': requestId }),
  renderError: openAiErrorResponse,
  wholeContentType: 'application/json',
}
