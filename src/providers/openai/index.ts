import type { ProviderConfig } from '../../config/types.ts'
import { createHttpProvider } from '../http.ts'
import type { Provider } from '../../core/provider.ts'
import { decodeOpenAiError } from './decode-error.ts'
import { decodeOpenAiResponse } from '../../operations/chat/providers/openai/decode-response.ts'
import { createOpenAiStreamDecoder } from '../../operations/chat/providers/openai/decode-stream.ts'
import { encodeOpenAiRequest } from '../../operations/chat/providers/openai/encode-request.ts'

/** Any OpenAI-compatible Chat Completions server: OpenAI itself, vLLM, llama.cpp, Ollama, OpenRouter… */
export function createOpenAiProvider(config: ProviderConfig): Provider {
  return createHttpProvider(config, {
    nativeProtocol: 'openai-chat',
    encodeRequest: encodeOpenAiRequest,
    authHeaders: (provider): Record<string, string> => (provider.apiKey ? { authorization: `Bearer ${provider.apiKey}` } : {}),
    decodeResponse: decodeOpenAiResponse,
    createStreamDecoder: createOpenAiStreamDecoder,
    decodeError: decodeOpenAiError,
  })
}
