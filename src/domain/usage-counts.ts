import type { UsageRecord } from './records.ts'

/** Token counts that are not non-negative safe integers are stored as 0 and the row flagged estimated. */
const countFields = ['inputTokens', 'cachedInputTokens', 'cacheWriteTokens', 'outputTokens', 'reasoningTokens'] as const

export function sanitizeCounts(usage: UsageRecord): void {
  for (const field of countFields) {
    const value = usage[field]
    if (Number.isSafeInteger(value) && value >= 0) continue
    usage[field] = 0
    usage.estimated = true
  }
}
