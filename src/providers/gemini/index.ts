import type { ProviderConfig } from '../../config/types.ts'
import { keepFirstToolCall } from '../../operations/chat/providers/first-tool-call.ts'
import { createHttpProvider } from '../http.ts'
import type { Provider } from '../../core/provider.ts'
import { decodeGeminiError } from './decode-error.ts'
import { decodeGeminiResponse } from '../../operations/chat/providers/gemini/decode-response.ts'
import { createGeminiStreamDecoder } from '../../operations/chat/providers/gemini/decode-stream.ts'
import { encodeGeminiRequest } from '../../operations/chat/providers/gemini/encode-request.ts'

/** Google's Gemini API (generativelanguage v1beta), or anything that speaks it. */
export function createGeminiProvider(config: ProviderConfig): Provider {
  // Gemini has no switch for parallel calls: a client that turned them off gets the first call only.
  return keepFirstToolCall(createHttpProvider(config, {
    nativeProtocol: 'gemini',
    encodeRequest: encodeGeminiRequest,
    authHeaders: (provider): Record<string, string> => (provider.apiKey ? { 'x-goog-api-key': provider.apiKey } : {}),
    decodeResponse: decodeGeminiResponse,
    createStreamDecoder: createGeminiStreamDecoder,
    decodeError: decodeGeminiError,
  }))
}
