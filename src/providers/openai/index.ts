import type { HttpVendor } from '../http-codec.ts'
import { decodeOpenAiError } from './decode-error.ts'

/** Any OpenAI-compatible server: OpenAI itself, vLLM, llama.cpp, Ollama, text-embeddings-inference, OpenRouter… */
export const openAiVendor: HttpVendor = {
  authHeaders: (provider): Record<string, string> => (provider.apiKey ? { authorization: `Bearer ${provider.apiKey}` } : {}),
  decodeError: decodeOpenAiError,
}
