import type { Usage } from './ir.ts'

/** Prices in money units (nano-dollars) per one million tokens. */
export interface Price {
  input: number
  output: number
  cachedInput: number
  cacheWrite: number
}

const TOKENS_PER_PRICE = 1_000_000n

/**
 * The cost of one request in money units.
 *
 * Rounding: the exact cost is a fraction of a unit only when a price has more than three decimals per million
 * tokens; it is rounded **up** to the next whole nano-dollar, once per request, on the sum of all token kinds.
 * BigInt keeps tokens × price exact even past 2^53.
 */
export function costOf(usage: Usage, price: Price): number {
  const cached = Math.min(usage.cachedInputTokens, usage.inputTokens)
  const written = Math.min(usage.cacheWriteTokens, usage.inputTokens - cached)
  const plainInput = usage.inputTokens - cached - written
  const total =
    BigInt(plainInput) * BigInt(price.input) +
    BigInt(cached) * BigInt(price.cachedInput) +
    BigInt(written) * BigInt(price.cacheWrite) +
    BigInt(usage.outputTokens) * BigInt(price.output)
  return Number((total + TOKENS_PER_PRICE - 1n) / TOKENS_PER_PRICE)
}

/**
 * The most a request can cost: every input token at the full input price (a cache hit only makes it cheaper)
 * plus the whole output allowance.
 */
export function worstCaseCost(inputTokens: number, maxOutputTokens: number, price: Price): number {
  const inputPrice = Math.max(price.input, price.cacheWrite)
  const total = BigInt(inputTokens) * BigInt(inputPrice) + BigInt(maxOutputTokens) * BigInt(price.output)
  return Number((total + TOKENS_PER_PRICE - 1n) / TOKENS_PER_PRICE)
}
