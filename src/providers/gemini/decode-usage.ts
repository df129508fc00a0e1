import type { FinishReason, Usage } from '../../core/ir.ts'

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
 */
export function decodeGeminiUsage(usage: GeminiUsageMetadata): Usage {
  const reasoningTokens = usage.thoughtsTokenCount ?? 0
  return {
    inputTokens: (usage.promptTokenCount ?? 0) + (usage.toolUsePromptTokenCount ?? 0),
    cachedInputTokens: usage.cachedContentTokenCount ?? 0,
    cacheWriteTokens: 0,
    outputTokens: (usage.candidatesTokenCount ?? 0) + reasoningTokens,
    reasoningTokens,
  }
}

const filtered = new Set(['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY', 'LANGUAGE'])

/** Gemini ends a function call with STOP too; the caller says whether the answer held calls. */
export function mapGeminiFinishReason(reason: string | undefined, calledTools: boolean): FinishReason {
  if (reason === undefined || reason === 'STOP' || reason === 'FINISH_REASON_UNSPECIFIED') return calledTools ? 'tool-calls' : 'stop'
  if (reason === 'MAX_TOKENS') return 'length'
  if (filtered.has(reason)) return 'content-filter'
  return 'other'
}
