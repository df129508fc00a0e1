import type { GatewayError } from '../../../../core/errors.ts'
import { promptText } from '../../core/prompt-text.ts'
import type { ChatRequest, ChatResponse, StreamEvent } from '../../core/ir.ts'
import type { Target } from '../../../../core/provider.ts'
import type { ClientProtocol, Exchange } from '../../../../protocols/shared/client-protocol.ts'
import type { Json } from '../../../../protocols/shared/validate.ts'
import { decodeMessagesRequest } from './decode-request.ts'
import { formatErrorEvent } from '../../../../protocols/anthropic/encode-error.ts'
import { encodeMessageResponse } from './encode-response.ts'
import { encodeAnthropicStream } from './encode-stream.ts'
import { anthropicErrorResponse } from '../../../../protocols/anthropic/error-response.ts'
import { buildMessagesForward } from './passthrough.ts'
import { encodeAnthropicRateLimitHeaders } from '../../../../protocols/anthropic/rate-limit-headers.ts'
import { readAnthropicSecret } from '../../../../protocols/anthropic/read-secret.ts'
import { chatOperation } from '../../relay/operation.ts'
import { bodyReleased } from '../../../../protocols/shared/released-body.ts'

/** One Messages request: its IR, and its own body (with `?beta` and `anthropic-beta`) for an Anthropic upstream. */
class MessagesExchange implements Exchange {
  constructor(
    readonly request: ChatRequest,
    private text: string,
    private body: Json | undefined,
    private http: Request | undefined,
    private readonly requestId: string,
  ) {}

  forward(target: Target) {
    if (this.body === undefined || this.http === undefined) throw bodyReleased()
    return buildMessagesForward(this.text, this.body, target, this.http)
  }

  answerBegun(): void {
    this.text = ''
    this.body = undefined
    this.http = undefined
  }

  encodeWhole(response: ChatResponse): string {
    return JSON.stringify(encodeMessageResponse(response, this.request.model))
  }

  encodeStream(events: AsyncIterable<StreamEvent>) {
    // message_start carries the upstream's exact input count when it reports one before the answer (Anthropic,
    // Gemini); otherwise (OpenAI reports usage at the end) a rough guess, which spares the tokenizer (tens of
    // milliseconds on a Claude Code prompt) on the way to the first byte, and message_delta the exact count.
    const chat = this.request
    return encodeAnthropicStream(events, chat.model, () => Math.ceil(promptText(chat).length / 4), this.requestId)
  }

  encodeRawError(error: GatewayError) {
    return formatErrorEvent(error, this.requestId)
  }
}

/** POST /v1/messages: decode, relay, encode (or forward bytes when the upstream speaks Anthropic too). */
export const anthropicMessages: ClientProtocol = {
  operation: chatOperation,
  name: 'anthropic',
  readSecret: readAnthropicSecret,
  decode: (body, text, request, requestId) => new MessagesExchange(decodeMessagesRequest(body), text, body, request, requestId),
  answerHeaders: (requestId, rateLimit) => encodeAnthropicRateLimitHeaders(rateLimit, { 'request-id': requestId }),
  renderError: anthropicErrorResponse,
  wholeContentType: 'application/json',
}
