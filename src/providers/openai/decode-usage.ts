import type { Usage } from '../../core/ir.ts'

interface OpenAiUsage {
  prompt_tokens?: number
  completion_tokens?: number
  prompt_tokens_details?: { cached_tokens?: number | null; cache_write_tokens?: number | null } | null
  completion_tokens_details?: { reasoning_tokens?: number | null } | null
}

export function decodeOpenAiUsage(usage: OpenAiUsage): Usage {
  return {
    inputTokens: usage.prompt_tokens ?? 0,
    cachedInputTokens: usage.prompt_tokens_details?.cached_tokens ?? 0,
    cacheWriteTokens: usage.prompt_tokens_details?.cache_write_tokens ?? 0,
    outputTokens: usage.completion_tokens ?? 0,
    reasoningTokens: usage.completion_tokens_details?.reasoning_tokens ?? 0,
  }
}
