import type { FinishReason, Usage } from '../../core/ir.ts'
import { checkedUsage, reportedCount } from '../../../../core/usage.ts'

export interface GeminiUsageMetadata {
  promptTokenCount?: number
  cachedContentTokenCount?: number
  candidatesTokenCount?: number
  thoughtsTokenCount?: number
  toolUsePromptTokenCount?: number
  totalTokenCount?: number
}

/**
 * Gemini counts thoughts apart from the answer (`candidatesTokenCount` excludes them) while the IR's output
 * includes reasoning, as every price list bills it; cached tokens are part of the prompt count, as in the IR.
 * Tokens of built-in tool results (`toolUsePromptTokenCount`) are billed by Google as input, so they count here too.
 * Undefined when a count is not a finite, non-negative safe integer (core/usage.ts): no usage reported.
 */
export function decodeGeminiUsage(usage: GeminiUsageMetadata): Usage | undefined {
  const reasoningTokens = reportedCount(usage.thoughtsTokenCount)
  return checkedUsage({
    inputTokens: reportedCount(usage.promptTokenCount) + reportedCount(usage.toolUsePromptTokenCount),
    cachedInputTokens: reportedCount(usage.cachedContentTokenCount),
    cacheWriteTokens: 0,
    outputTokens: reportedCount(usage.candidatesTokenCount) + reasoningTokens,
    reasoningTokens,
  })
}

const filtered = new Set(['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY', 'LANGUAGE'])

/** Gemini ends a function call with STOP too; the caller says whether the answer held calls. */
export function mapGeminiFinishReason(reason: string | undefined, calledTools: boolean): FinishReason {
  if (reason === undefined || reason === 'STOP' || reason === 'FINISH_REASON_UNSPECIFIED') return calledTools ? 'tool-calls' : 'stop'
  if (reason === 'MAX_TOKENS') return 'length'
  if (filtered.has(reason)) return 'content-filter'
  return 'other'
}
