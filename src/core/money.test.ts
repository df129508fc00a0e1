import { describe, expect, test } from 'bun:test'
import { formatUsd, parseUsd } from './money.ts'
import { costOf, worstCaseCost } from './pricing.ts'

describe('money', () => {
  test('dollars parse exactly into nano-dollar units and print back the same', () => {
    expect(parseUsd('10')).toBe(10_000_000_000)
    expect(parseUsd('0.000000001')).toBe(1)
    expect(parseUsd(1.25)).toBe(1_250_000_000)
    expect(parseUsd(0.1)).toBe(100_000_000)
    expect(parseUsd(1e-7)).toBe(100)
    expect(formatUsd(9_999_958_750)).toBe('9.99995875')
    expect(formatUsd(10_000_000_000)).toBe('10.00')
    expect(formatUsd(1)).toBe('0.000000001')
    expect(formatUsd(-2_500_000_000)).toBe('-2.50')
  })

  test('inexact or malformed amounts are refused, not rounded', () => {
    expect(() => parseUsd('0.0000000001')).toThrow('more than 9 decimals')
    expect(() => parseUsd('ten')).toThrow()
    expect(() => parseUsd('1e3')).toThrow()
    expect(() => parseUsd('')).toThrow()
  })

  test('cost: cached tokens at the cached price, rounded up once per request', () => {
    const price = { input: parseUsd('1.25'), output: parseUsd('10'), cachedInput: parseUsd('0.125'), cacheWrite: parseUsd('1.25') }
    // 25 input tokens at $1.25/M + 1 output token at $10/M = $0.00004125 exactly
    expect(costOf({ inputTokens: 25, cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens: 1, reasoningTokens: 0 }, price)).toBe(41_250)
    // 4012 of 4100 input tokens cached
    expect(costOf({ inputTokens: 4100, cachedInputTokens: 4012, cacheWriteTokens: 0, outputTokens: 0, reasoningTokens: 0 }, price)).toBe(
      88 * 1250 + 4012 * 125,
    )
    // $0.0375 per 1M tokens is 37.5 nano-dollars per token: one token rounds up to 38, two are exactly 75.
    const odd = { input: parseUsd('0.0375'), output: 0, cachedInput: 0, cacheWrite: 0 }
    expect(costOf({ inputTokens: 1, cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens: 0, reasoningTokens: 0 }, odd)).toBe(38)
    expect(costOf({ inputTokens: 2, cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens: 0, reasoningTokens: 0 }, odd)).toBe(75)
  })

  test('huge token counts do not lose precision', () => {
    const price = { input: parseUsd('3'), output: parseUsd('15'), cachedInput: 0, cacheWrite: parseUsd('3.75') }
    expect(worstCaseCost(2_000_000_000, 1, price)).toBe(7_500_000_000_000 + 15_000)
  })
})
