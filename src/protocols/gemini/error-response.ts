import { errorResponse } from '../shared/error-response.ts'
import { encodeGeminiError } from './encode-error.ts'

export function geminiErrorResponse(error: unknown, requestId?: string): Response {
  return errorResponse(error, encodeGeminiError, requestId)
}
