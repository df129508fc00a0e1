import type { GatewayError } from '../../core/errors.ts'
import { errorResponse } from '../shared/error-response.ts'
import { encodeGeminiError } from './encode-error.ts'

export function geminiErrorResponse(failure: GatewayError, requestId?: string): Response {
  return errorResponse(failure, encodeGeminiError, requestId)
}
