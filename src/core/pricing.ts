import type { Usage } from './usage.ts'

/** Prices in money units (nano-dollars) per one million tokens. */
export interface Price {
  input: number
  output: number
  cachedInput: number
  cacheWrite: number
  /** Nano-dollars per image, by `size/quality` or `size` (image models priced per image). */
  images?: Readonly<Record<string, number>>
  /** Nano-dollars per search unit (rerank models priced per search unit). */
  searchUnit?: number
  /** Speech: per one million input characters. */
  characters?: number
  /** Transcription: per minute of audio, counted in whole seconds. */
  audioMinute?: number
}

const TOKENS_PER_PRICE = 1_000_000n

/**
 * The cost of one request in money units.
 *
 * Rounding: the exact cost is a fraction of a unit only when a price has more than three decimals per million
 * tokens; it is rounded **up** to the next whole nano-dollar, once per request, on the sum of all token kinds.
 * Exact even past 2^53 (see `ceilPerMillion`).
 */
export function costOf(usage: Usage, price: Price): number {
  const cached = Math.min(usage.cachedInputTokens, usage.inputTokens)
  const written = Math.min(usage.cacheWriteTokens, usage.inputTokens - cached)
  const plainInput = usage.inputTokens - cached - written
  return ceilPerMillion([plainInput, price.input, cached, price.cachedInput, written, price.cacheWrite, usage.outputTokens, price.output])
}

/**
 * The most a request can cost: every input token at the full input price (a cache hit only makes it cheaper)
 * plus the whole output allowance.
 */
export function worstCaseCost(inputTokens: number, maxOutputTokens: number, price: Price): number {
  return ceilPerMillion([inputTokens, Math.max(price.input, price.cacheWrite), maxOutputTokens, price.output])
}

/**
 * ⌈Σ tokens × price / 1 000 000⌉ for integer pairs `[tokens, price, tokens, price, …]`, exactly.
 *
 * Plain numbers while every product and partial sum is a safe integer (then each is exact: a result that had to
 * be rounded would be at least 2^53, which is not safe); BigInt otherwise. BigInt on every request measured ~2% of
 * the gateway's CPU (bench/, 2026-11-23), and real requests never come near 2^53 nano-dollars.
 */
export function ceilPerMillion(pairs: number[]): number {
  let total = 0
  for (let index = 0; index < pairs.length; index += 2) {
    const product = pairs[index]! * pairs[index + 1]!
    total += product
    if (!Number.isSafeInteger(product) || !Number.isSafeInteger(total)) return ceilPerMillionBig(pairs)
  }
  if (total < 0) return ceilPerMillionBig(pairs) // never for real prices; keeps BigInt's rounding there
  // The quotient as a float may be off by one near 2^53; the remainder, exact here, corrects it.
  let quotient = Math.floor(total / 1_000_000)
  let remainder = total - quotient * 1_000_000
  if (remainder < 0) {
    quotient--
    remainder += 1_000_000
  } else if (remainder >= 1_000_000) {
    quotient++
    remainder -= 1_000_000
  }
  return remainder > 0 ? quotient + 1 : quotient
}

function ceilPerMillionBig(pairs: number[]): number {
  let total = 0n
  for (let index = 0; index < pairs.length; index += 2) total += BigInt(pairs[index]!) * BigInt(pairs[index + 1]!)
  // BigInt division truncates toward zero: ceil for a non-negative total, as before.
  return Number((total + TOKENS_PER_PRICE - 1n) / TOKENS_PER_PRICE)
}
