import { invalidRequest } from '../../core/errors.ts'
import { countTokens, promptText } from '../../core/estimate.ts'
import { sseHeaders } from '../../core/sse.ts'
import { newRequestId } from '../../core/ids.ts'
import { jsonResponse, rawStreamResponse, streamResponse } from '../../edge/respond.ts'
import type { Services } from '../../edge/services.ts'
import { isObject, parseJsonBody } from '../shared/validate.ts'
import { authenticateGemini } from './authenticate.ts'
import { decodeGeminiRequest } from './decode-request.ts'
import { encodeGeminiResponse } from './encode-response.ts'
import { encodeGeminiStream } from './encode-stream.ts'
import { geminiErrorResponse } from './error-response.ts'
import { buildGeminiForward, encodeRawGeminiError } from './passthrough.ts'
import { AbortScope } from '../../relay/abort-scope.ts'

export const protocolName = 'gemini'

/** POST …:generateContent and …:streamGenerateContent: decode, relay, encode (or forward bytes to a Gemini upstream). */
export async function generateContent(services: Services, request: Request, model: string, method: 'generateContent' | 'streamGenerateContent'): Promise<Response> {
  const requestId = newRequestId()
  try {
    const key = await authenticateGemini(services, request)
    const text = await request.text()
    const body = parseJsonBody(text)
    const stream = method === 'streamGenerateContent'
    const sse = new URL(request.url).searchParams.get('alt') === 'sse'
    const chat = decodeGeminiRequest(body, model, stream)
    const scope = AbortScope.of(request)
    const result = await services.relay.run({
      key, protocol: protocolName, requestId, request: chat,
      inputBound: Buffer.byteLength(text),
      scope,
      // The JSON-array stream (no alt=sse) is re-encoded from the IR: the meter reads upstream streams as SSE.
      forward: !stream || sse ? (target) => buildGeminiForward(text, body, target, method) : undefined,
      encodeRawError: encodeRawGeminiError,
    })
    const headers = { 'x-request-id': requestId }
    const responseId = requestId.slice(4)
    switch (result.kind) {
      case 'raw':
        return new Response(result.body, { headers: { ...headers, 'content-type': 'application/json; charset=UTF-8' } })
      case 'raw-stream':
        return rawStreamResponse(result.body, { ...sseHeaders, ...headers })
      case 'response':
        return jsonResponse(encodeGeminiResponse(result.response, chat.model, responseId), 200, headers)
      case 'stream': {
        const contentType = sse ? sseHeaders : { 'content-type': 'application/json; charset=UTF-8' }
        return streamResponse(encodeGeminiStream(result.events, chat.model, responseId, sse ? 'sse' : 'json'), { ...contentType, ...headers }, () => scope.end())
      }
    }
  } catch (error) {
    return geminiErrorResponse(error, requestId)
  }
}

/**
 * POST …:countTokens, answered here with the gateway's own tokenizer (an estimate for non-OpenAI models): the body is
 * `{contents}` or `{generateContentRequest}`, as the API takes either.
 */
export async function countGeminiTokens(services: Services, request: Request, model: string): Promise<Response> {
  try {
    const key = await authenticateGemini(services, request)
    const body = parseJsonBody(await request.text())
    services.relay.resolveModel(key, model)
    const inner = body.generateContentRequest ?? body.generate_content_request
    if (inner !== undefined && !isObject(inner)) throw invalidRequest("Invalid type for 'generateContentRequest': expected an object.", 'generateContentRequest')
    const chat = decodeGeminiRequest(inner ?? body, model, false)
    return jsonResponse({ totalTokens: await countTokens(promptText(chat)) })
  } catch (error) {
    return geminiErrorResponse(error)
  }
}
