import type { ChatRequest, ChatResponse, StreamEvent } from '../../core/ir.ts'
import type { GatewayError } from '../../../../core/errors.ts'
import type { Target } from '../../../../core/provider.ts'
import type { SseEvent } from '../../../../core/sse.ts'
import { bearerToken } from '../../../../edge/auth.ts'
import type { ClientProtocol, Exchange } from '../../../../protocols/shared/client-protocol.ts'
import { isObject, type Json } from '../../../../protocols/shared/validate.ts'
import { decodeChatRequest } from './decode-request.ts'
import { encodeChatResponse } from './encode-response.ts'
import { encodeChatStream } from './encode-stream.ts'
import { encodeOpenAiRateLimitHeaders, openAiErrorResponse } from '../../../../protocols/openai-chat/error-response.ts'
import { buildChatForward, encodeRawChatError, isUsageChunk } from './passthrough.ts'
import { chatOperation } from '../../relay/operation.ts'
import { bodyReleased } from '../../../../protocols/shared/released-body.ts'

/** One Chat Completions request: its IR, and its own body for an OpenAI-compatible upstream. */
class ChatExchange implements Exchange {
  /** The usage chunk is forwarded only to a client that asked for it (the gateway always asks the upstream). */
  readonly dropRawEvent: ((event: SseEvent) => boolean) | undefined

  constructor(
    readonly request: ChatRequest,
    private text: string,
    private body: Json | undefined,
    private readonly includeUsage: boolean,
  ) {
    this.dropRawEvent = includeUsage ? undefined : isUsageChunk
  }

  forward(target: Target) {
    if (this.body === undefined) throw bodyReleased()
    return buildChatForward(this.text, this.body, target)
  }

  answerBegun(): void {
    this.text = ''
    this.body = undefined
  }

  encodeWhole(response: ChatResponse): string {
    return JSON.stringify(encodeChatResponse(response, this.request.model))
  }

  encodeStream(events: AsyncIterable<StreamEvent>) {
    return encodeChatStream(events, this.request.model, this.includeUsage)
  }

  encodeRawError(error: GatewayError) {
    return encodeRawChatError(error)
  }
}

/** POST /v1/chat/completions: decode, relay, encode (or forward bytes when the upstream speaks the same protocol). */
export const openAiChat: ClientProtocol = {
  operation: chatOperation,
  name: 'openai-chat',
  readSecret: bearerToken,
  decode(body, text) {
    const includeUsage = isObject(body.stream_options) && body.stream_options.include_usage === true
    return new ChatExchange(decodeChatRequest(body), text, body, includeUsage)
  },
  answerHeaders: (requestId, rateLimit) => encodeOpenAiRateLimitHeaders(rateLimit, { 'x-request-id': requestId }),
  renderError: openAiErrorResponse,
  wholeContentType: 'application/json',
}
