/**
 * What an answer used, as the upstream reported it (or the gateway estimated it): the one measure every operation's
 * meter produces and every price is applied to (each operation prices it: operations/<name>/core). Token counts
 * first: `inputTokens` includes cached and cache-write tokens (the OpenAI convention); `outputTokens` includes
 * reasoning.
 */
export interface Usage {
  inputTokens: number
  cachedInputTokens: number
  cacheWriteTokens: number
  outputTokens: number
  reasoningTokens: number
  /**
   * How much of the operation's own unit the answer used, for operations measured in more than tokens (embeddings:
   * inputs embedded; later images, seconds of audio, characters, search units). Absent: none.
   */
  units?: number
  /**
   * What the units were, when their price depends on it (an image's `size/quality`, as the upstream said it made
   * them, else as the request asked): the operation's `costOf` reads it. Not recorded.
   */
  variant?: string
  /** True when the counts are our own estimate rather than the upstream's report. */
  estimated?: boolean
}

export function emptyUsage(): Usage {
  return { inputTokens: 0, cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens: 0, reasoningTokens: 0 }
}

/**
 * Upstream usage reports are billed from, so their numbers are checked where they are decoded: every count must be a
 * finite, non-negative safe integer. A report with any other value — a string, an object, `1e400` (which JSON parses
 * as Infinity), a negative count — is not a report at all: the meter then estimates, and the usage row says so.
 */

/** One count as an upstream sent it: absent (`undefined` / `null`) is 0, a non-number is NaN (so `checkedUsage` refuses it). */
export function reportedCount(value: unknown): number {
  if (value === undefined || value === null) return 0
  return typeof value === 'number' ? value : Number.NaN
}

export function isTokenCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0
}

/** `usage` when every count in it is a token count (sums included: they may pass 2^53), else undefined. */
export function checkedUsage(usage: Usage): Usage | undefined {
  return isTokenCount(usage.inputTokens) &&
    isTokenCount(usage.cachedInputTokens) &&
    isTokenCount(usage.cacheWriteTokens) &&
    isTokenCount(usage.outputTokens) &&
    isTokenCount(usage.reasoningTokens)
    ? usage
    : undefined
}

/**
 * What a stream decoder passes on in place of a report it could not use: all zeros, which the meter takes as "no
 * usage reported" — so an earlier partial report of the same stream is not billed as if it were the whole answer.
 */
export function unreportedUsage(): Usage {
  return { inputTokens: 0, cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens: 0, reasoningTokens: 0 }
}
