import { errorResponse } from '../shared/error-response.ts'
import { encodeOpenAiError } from './encode-error.ts'

export function openAiErrorResponse(error: unknown, requestId?: string): Response {
  return errorResponse(error, encodeOpenAiError, requestId)
}
