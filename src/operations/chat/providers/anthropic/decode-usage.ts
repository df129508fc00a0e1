import type { Usage } from '../../core/ir.ts'
import { checkedUsage, reportedCount } from '../../../../core/usage.ts'

export interface AnthropicUsage {
  input_tokens?: number | null
  output_tokens?: number | null
  cache_read_input_tokens?: number | null
  cache_creation_input_tokens?: number | null
}

/**
 * Anthropic counts cache reads and cache writes apart from `input_tokens`; the IR counts them inside
 * `inputTokens` (the OpenAI convention), so the three are added up here and pricing splits them again.
 * Thinking is part of `output_tokens`; Anthropic does not report it apart. Undefined when a count is not a finite,
 * non-negative safe integer (core/usage.ts): no usage reported.
 */
export function decodeAnthropicUsage(usage: AnthropicUsage): Usage | undefined {
  const cached = reportedCount(usage.cache_read_input_tokens)
  const written = reportedCount(usage.cache_creation_input_tokens)
  return checkedUsage({
    inputTokens: reportedCount(usage.input_tokens) + cached + written,
    cachedInputTokens: cached,
    cacheWriteTokens: written,
    outputTokens: reportedCount(usage.output_tokens),
    reasoningTokens: 0,
  })
}
