import type { GatewayError } from '../../../../core/errors.ts'
import type { ChatRequest, ChatResponse, StreamEvent } from '../../core/ir.ts'
import type { ForwardRequest, Target } from '../../../../core/provider.ts'
import type { ClientProtocol, Exchange } from '../../../../protocols/shared/client-protocol.ts'
import type { Json } from '../../../../protocols/shared/validate.ts'
import { decodeGeminiRequest } from './decode-request.ts'
import { encodeGeminiResponse } from './encode-response.ts'
import { encodeGeminiStream } from './encode-stream.ts'
import { geminiErrorResponse } from '../../../../protocols/gemini/error-response.ts'
import { modelPathOf, splitModelPath, unknownMethod } from '../../../../protocols/gemini/model-path.ts'
import { buildGeminiForward, encodeRawGeminiError } from './passthrough.ts'
import { readGeminiSecret } from '../../../../protocols/gemini/read-secret.ts'
import { chatOperation } from '../../relay/operation.ts'
import { bodyReleased } from '../../../../protocols/shared/released-body.ts'

type Method = 'generateContent' | 'streamGenerateContent'

/** One generateContent request: its IR, its own body for a Gemini upstream, and how its stream is framed. */
class GenerateExchange implements Exchange {
  /** The JSON-array stream (no alt=sse) is re-encoded from the IR: the meter reads upstream streams as SSE. */
  readonly forward: ((target: Target) => ForwardRequest) | undefined
  readonly streamContentType: string | undefined

  constructor(
    readonly request: ChatRequest,
    private text: string,
    private body: Json | undefined,
    private readonly method: Method,
    private readonly sse: boolean,
    private readonly responseId: string,
  ) {
    this.forward = !request.stream || sse ? this.forwardBody : undefined
    this.streamContentType = sse ? undefined : 'application/json; charset=UTF-8'
  }

  /** Called as `exchange.forward(target)`, so `this` is the exchange. */
  private forwardBody(this: GenerateExchange, target: Target) {
    if (this.body === undefined) throw bodyReleased()
    return buildGeminiForward(this.text, this.body, target, this.method)
  }

  answerBegun(): void {
    this.text = ''
    this.body = undefined
  }

  encodeWhole(response: ChatResponse): string {
    return JSON.stringify(encodeGeminiResponse(response, this.request.model, this.responseId))
  }

  encodeStream(events: AsyncIterable<StreamEvent>) {
    return encodeGeminiStream(events, this.request.model, this.responseId, this.sse ? 'sse' : 'json')
  }

  encodeRawError(error: GatewayError) {
    return encodeRawGeminiError(error)
  }
}

/** POST …:generateContent and …:streamGenerateContent: decode, relay, encode (or forward bytes to a Gemini upstream). */
export const geminiGenerate: ClientProtocol = {
  operation: chatOperation,
  name: 'gemini',
  readSecret: readGeminiSecret,
  decode(body, text, request, requestId) {
    const url = new URL(request.url)
    const { model, method } = splitModelPath(modelPathOf(url))
    if (method !== 'generateContent' && method !== 'streamGenerateContent') throw unknownMethod(method)
    const stream = method === 'streamGenerateContent'
    const sse = url.searchParams.get('alt') === 'sse'
    return new GenerateExchange(decodeGeminiRequest(body, model, stream), text, body, method, sse, requestId.slice(4))
  },
  answerHeaders: (requestId) => ({ 'x-request-id': requestId }),
  renderError: geminiErrorResponse,
  wholeContentType: 'application/json; charset=UTF-8',
}
