import type { Usage } from '../../core/ir.ts'

export interface AnthropicUsage {
  input_tokens?: number | null
  output_tokens?: number | null
  cache_read_input_tokens?: number | null
  cache_creation_input_tokens?: number | null
}

/**
 * Anthropic counts cache reads and cache writes apart from `input_tokens`; the IR counts them inside
 * `inputTokens` (the OpenAI convention), so the three are added up here and pricing splits them again.
 * Thinking is part of `output_tokens`; Anthropic does not report it apart.
 */
export function decodeAnthropicUsage(usage: AnthropicUsage): Usage {
  const cached = usage.cache_read_input_tokens ?? 0
  const written = usage.cache_creation_input_tokens ?? 0
  return {
    inputTokens: (usage.input_tokens ?? 0) + cached + written,
    cachedInputTokens: cached,
    cacheWriteTokens: written,
    outputTokens: usage.output_tokens ?? 0,
    reasoningTokens: 0,
  }
}
