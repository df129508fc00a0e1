import type { ChatResponse } from '../../core/ir.ts'
import { encodeGeminiParts } from '../../wire/gemini/parts.ts'
import { encodeGeminiLogprobs } from '../../wire/gemini/logprobs.ts'
import { encodeFinishReason, encodeUsageMetadata } from './encode-usage.ts'

/**
 * IR response → a GenerateContentResponse. `modelVersion` is the gateway's model id, the one the client asked for.
 * Function calls carry the IR's ids: Gemini clients echo them in their functionResponse, which pairs results exactly.
 */
export function encodeGeminiResponse(response: ChatResponse, model: string, responseId: string) {
  const parts = encodeGeminiParts(response.content, { withIds: true })
  return {
    candidates: [
      {
        content: { role: 'model', parts: parts.length ? parts : [{ text: '' }] },
        finishReason: encodeFinishReason(response.finishReason),
        index: 0,
        ...(response.logprobs && { logprobsResult: encodeGeminiLogprobs(response.logprobs) }),
      },
    ],
    ...(response.usage && { usageMetadata: encodeUsageMetadata(response.usage) }),
    modelVersion: model,
    responseId: response.id || responseId,
  }
}
