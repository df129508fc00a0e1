import { checkedUsage, reportedCount, type Usage } from '../../../core/usage.ts'

/** OpenAI's token usage as a transcription reports it (`usage.type: tokens`), checked like any report. */
export function transcriptionTokens(usage: unknown): Usage | undefined {
  const report = usage as { type?: unknown; input_tokens?: unknown; output_tokens?: unknown } | null | undefined
  if (!report || report.type !== 'tokens') return undefined
  return checkedUsage({
    inputTokens: reportedCount(report.input_tokens),
    outputTokens: reportedCount(report.output_tokens),
    cachedInputTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
  })
}
