import type { ProviderConfig } from '../../config/types.ts'
import { createHttpProvider } from '../http.ts'
import type { Provider } from '../../core/provider.ts'
import { decodeGeminiError } from './decode-error.ts'
import { decodeGeminiResponse } from './decode-response.ts'
import { createGeminiStreamDecoder } from './decode-stream.ts'
import { encodeGeminiRequest } from './encode-request.ts'

/** Google's Gemini API (generativelanguage v1beta), or anything that speaks it. */
export function createGeminiProvider(config: ProviderConfig): Provider {
  return createHttpProvider(config, {
    nativeProtocol: 'gemini',
    encodeRequest: encodeGeminiRequest,
    authHeaders: (provider): Record<string, string> => (provider.apiKey ? { 'x-goog-api-key': provider.apiKey } : {}),
    decodeResponse: decodeGeminiResponse,
    createStreamDecoder: createGeminiStreamDecoder,
    decodeError: decodeGeminiError,
  })
}
