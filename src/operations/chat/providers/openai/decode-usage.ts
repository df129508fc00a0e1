import type { Usage } from '../../core/ir.ts'
import { checkedUsage, reportedCount } from '../../../../core/usage.ts'

interface OpenAiUsage {
  prompt_tokens?: number
  completion_tokens?: number
  prompt_tokens_details?: { cached_tokens?: number | null; cache_write_tokens?: number | null } | null
  completion_tokens_details?: { reasoning_tokens?: number | null } | null
}

/** Undefined when a count is not a finite, non-negative safe integer (core/usage.ts): no usage reported. */
export function decodeOpenAiUsage(usage: OpenAiUsage): Usage | undefined {
  return checkedUsage({
    inputTokens: reportedCount(usage.prompt_tokens),
    cachedInputTokens: reportedCount(usage.prompt_tokens_details?.cached_tokens),
    cacheWriteTokens: reportedCount(usage.prompt_tokens_details?.cache_write_tokens),
    outputTokens: reportedCount(usage.completion_tokens),
    reasoningTokens: reportedCount(usage.completion_tokens_details?.reasoning_tokens),
  })
}
