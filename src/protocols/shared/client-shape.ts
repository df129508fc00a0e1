import type { GatewayError } from '../../core/errors.ts'
import { anthropicErrorResponse, isAnthropicRequest } from '../anthropic/error-response.ts'
import { geminiErrorResponse } from '../gemini/error-response.ts'
import { isGeminiRequest } from '../gemini/read-secret.ts'
import { openAiErrorResponse } from '../openai-chat/error-response.ts'

/** Which vendor's shapes a request's client reads, for a path more than one protocol shares. */
export type ClientShape = 'gemini' | 'anthropic' | 'openai'

/**
 * Decided here once for every shared path (unknown paths, /v1/tasks, /v1/batches, /v1/models): Gemini's and
 * Anthropic's clients parse only their vendor's shapes and say who they are (gemini/read-secret.ts,
 * anthropic/error-response.ts); everything else gets OpenAI's.
 */
export function clientShapeOf(request: Request): ClientShape {
  if (isGeminiRequest(request)) return 'gemini'
  return isAnthropicRequest(request) ? 'anthropic' : 'openai'
}

const errorRenderers: Record<ClientShape, (failure: GatewayError, requestId?: string) => Response> = {
  gemini: geminiErrorResponse,
  anthropic: anthropicErrorResponse,
  openai: openAiErrorResponse,
}

/** A failure in the shape the request's client reads. */
export function renderErrorFor(request: Request, failure: GatewayError, requestId?: string): Response {
  return errorRenderers[clientShapeOf(request)](failure, requestId)
}
