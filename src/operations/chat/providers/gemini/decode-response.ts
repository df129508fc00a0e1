import { randomBase62 } from '../../../../core/ids.ts'
import type { ChatResponse } from '../../core/ir.ts'
import { decodeGeminiUsage, mapGeminiFinishReason, type GeminiUsageMetadata } from './decode-usage.ts'
import { decodeGeminiParts, type CallIds, type GeminiPart } from '../../wire/gemini/parts.ts'
import { decodeGeminiLogprobs, type GeminiLogprobsResult } from '../../wire/gemini/logprobs.ts'

/** One `GenerateContentResponse`, whole or as one streamed chunk. */
export interface GeminiResponse {
  candidates?: {
    content?: { role?: string; parts?: GeminiPart[] }
    finishReason?: string
    index?: number
    logprobsResult?: GeminiLogprobsResult
  }[]
  promptFeedback?: { blockReason?: string }
  usageMetadata?: GeminiUsageMetadata
  modelVersion?: string
  responseId?: string
  error?: unknown
}

/** Gemini does not number its function calls; the IR (and every other protocol) needs an id per call. */
export const upstreamCallIds: CallIds = {
  forCall: (call) => call.id ?? `call_${randomBase62(22)}`,
  forResult: (result) => result.id ?? result.name,
}

export function decodeGeminiResponse(body: unknown): ChatResponse {
  const response = (body ?? {}) as GeminiResponse
  const candidate = response.candidates?.[0]
  const content = decodeGeminiParts(candidate?.content?.parts ?? [], upstreamCallIds)
  const calledTools = content.some((part) => part.type === 'tool-call')
  const logprobs = decodeGeminiLogprobs(candidate?.logprobsResult)
  return {
    id: response.responseId ?? '',
    model: response.modelVersion ?? '',
    created: Math.floor(Date.now() / 1000),
    content,
    // A prompt blocked before any candidate exists says so in promptFeedback, not in a finish reason.
    finishReason:
      !candidate && response.promptFeedback?.blockReason ? 'content-filter' : mapGeminiFinishReason(candidate?.finishReason, calledTools),
    usage: response.usageMetadata ? decodeGeminiUsage(response.usageMetadata) : undefined,
    ...(logprobs && { logprobs }),
  }
}
