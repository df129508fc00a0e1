import type { Price } from '../../../core/pricing.ts'

/**
 * ⌈seconds × audio_minute / 60 + input tokens × input / 1M + output tokens × output / 1M⌉ in nano-dollars, exactly
 * (BigInt: a transcription is one request in seconds, not the hot path), rounded up once on the sum.
 */
export function transcriptionCost(seconds: number, inputTokens: number, outputTokens: number, price: Price): number {
  const perSixtyMillion =
    BigInt(seconds) * BigInt(price.audioMinute ?? 0) * 1_000_000n +
    60n * (BigInt(inputTokens) * BigInt(price.input) + BigInt(outputTokens) * BigInt(price.output))
  return Number((perSixtyMillion + 59_999_999n) / 60_000_000n)
}
