import { overHttp, type UpstreamFactories } from '../../../providers/upstreams.ts'
import { decodeAnthropicResponse } from './anthropic/decode-response.ts'
import { createAnthropicStreamDecoder } from './anthropic/decode-stream.ts'
import { encodeAnthropicRequest } from './anthropic/encode-request.ts'
import { keepFirstToolCall } from './first-tool-call.ts'
import { decodeGeminiResponse } from './gemini/decode-response.ts'
import { createGeminiStreamDecoder } from './gemini/decode-stream.ts'
import { encodeGeminiRequest } from './gemini/encode-request.ts'
import { createHttpChatUpstream } from './http.ts'
import { createMockChatUpstream } from './mock/index.ts'
import { decodeOpenAiResponse } from './openai/decode-response.ts'
import { createOpenAiStreamDecoder } from './openai/decode-stream.ts'
import { encodeOpenAiRequest } from './openai/encode-request.ts'

/** Chat toward every kind of upstream (providers/registry.ts): each speaks its own chat wire format. */
export const chatUpstreams: UpstreamFactories = {
  // Any OpenAI-compatible Chat Completions server.
  openai: overHttp((transport) =>
    createHttpChatUpstream(transport, {
      nativeProtocol: 'openai-chat',
      encodeRequest: encodeOpenAiRequest,
      decodeResponse: decodeOpenAiResponse,
      createStreamDecoder: createOpenAiStreamDecoder,
    }),
  ),
  anthropic: overHttp((transport) =>
    createHttpChatUpstream(transport, {
      nativeProtocol: 'anthropic',
      encodeRequest: encodeAnthropicRequest,
      decodeResponse: decodeAnthropicResponse,
      createStreamDecoder: createAnthropicStreamDecoder,
    }),
  ),
  // Gemini has no switch for parallel calls: a client that turned them off gets the first call only.
  gemini: overHttp((transport) =>
    keepFirstToolCall(
      createHttpChatUpstream(transport, {
        nativeProtocol: 'gemini',
        encodeRequest: encodeGeminiRequest,
        decodeResponse: decodeGeminiResponse,
        createStreamDecoder: createGeminiStreamDecoder,
      }),
    ),
  ),
  mock: (site) => createMockChatUpstream(site.config),
}
