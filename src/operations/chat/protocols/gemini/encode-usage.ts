import type { FinishReason, Usage } from '../../core/ir.ts'

/** IR usage → usageMetadata: the answer's count leaves thoughts out, as Gemini reports it; zero counts are omitted. */
export function encodeUsageMetadata(usage: Usage): Record<string, number> {
  const metadata: Record<string, number> = {
    promptTokenCount: usage.inputTokens,
    candidatesTokenCount: Math.max(0, usage.outputTokens - usage.reasoningTokens),
    totalTokenCount: usage.inputTokens + usage.outputTokens,
  }
  if (usage.cachedInputTokens) metadata.cachedContentTokenCount = usage.cachedInputTokens
  if (usage.reasoningTokens) metadata.thoughtsTokenCount = usage.reasoningTokens
  return metadata
}

/** Gemini has no "tool calls" finish reason: an answer that calls functions simply stops. */
export function encodeFinishReason(reason: FinishReason | undefined): string {
  switch (reason) {
    case 'length':
      return 'MAX_TOKENS'
    case 'content-filter':
    case 'refusal':
      return 'SAFETY'
    case 'error':
    case 'other':
      return 'OTHER'
    default:
      return 'STOP'
  }
}
