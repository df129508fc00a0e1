import type { Usage } from '../../core/ir.ts'

/** IR usage → Anthropic's: cache reads and writes are reported apart from (not inside) `input_tokens`. */
export function encodeAnthropicUsage(usage: Usage) {
  const cached = Math.min(usage.cachedInputTokens, usage.inputTokens)
  const written = Math.min(usage.cacheWriteTokens, usage.inputTokens - cached)
  return {
    input_tokens: usage.inputTokens - cached - written,
    cache_creation_input_tokens: written,
    cache_read_input_tokens: cached,
    output_tokens: usage.outputTokens,
  }
}
