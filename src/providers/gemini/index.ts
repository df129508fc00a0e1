import type { HttpVendor } from '../http-codec.ts'
import { decodeGeminiError } from './decode-error.ts'

/** Google's Gemini API (generativelanguage v1beta), or anything that speaks it. */
export const geminiVendor: HttpVendor = {
  authHeaders: (provider): Record<string, string> => (provider.apiKey ? { 'x-goog-api-key': provider.apiKey } : {}),
  decodeError: decodeGeminiError,
}
