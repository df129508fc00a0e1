import { describe, expect, test } from 'bun:test'
import { ceilPerMillion, costOf, worstCaseCost } from './pricing.ts'

/** The definition, in BigInt all the way: what the fast path must always agree with. */
function reference(pairs: number[]): number {
  let total = 0n
  for (let index = 0; index < pairs.length; index += 2) total += BigInt(pairs[index]!) * BigInt(pairs[index + 1]!)
  return Number((total + 999_999n) / 1_000_000n)
}

describe('exact cost arithmetic', () => {
  test('agrees with BigInt around whole units, around 2^53 and past it', () => {
    const max = Number.MAX_SAFE_INTEGER
    const cases: number[][] = [
      [0, 0],
      [1, 1],
      [1, 999_999],
      [1, 1_000_000],
      [1, 1_000_001],
      [3, 333_333],
      [1_000_000, 1],
      [max, 1],
      [max - 1, 1],
      [1, max],
      [2 ** 52, 2],
      [2 ** 26, 2 ** 27],
      [94_906_265, 94_906_267], // just under / over 2^53
      [max, 1, 1, 1],
      [max - 999_999, 1, 999_998, 1],
      [2 ** 53, 1],
      [123_456_789, 987_654_321, 5, 7],
    ]
    let seed = 42
    const random = (limit: number) => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) % limit
    for (let index = 0; index < 2000; index++) {
      cases.push([
        random(2_000_000),
        random(100_000_000_000),
        random(200_000),
        random(20_000_000_000),
        random(50_000),
        random(100_000_000),
        random(100_000),
        random(500_000_000_000),
      ])
    }
    for (const pairs of cases) expect([pairs, ceilPerMillion(pairs)]).toEqual([pairs, reference(pairs)])
  })

  test('costOf and worstCaseCost round the sum up once, to the next nano-dollar', () => {
    const price = { input: 1_250, output: 10_000, cachedInput: 125, cacheWrite: 1_500 }
    // 1000 × 1250 + 10 × 10000 = 1 350 000 → 1.35 units → 2
    expect(costOf({ inputTokens: 1000, outputTokens: 10, cachedInputTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 }, price)).toBe(2)
    // (1000 − 400 − 100) × 1250 + 400 × 125 + 100 × 1500 + 0 = 825 000 → 1
    expect(costOf({ inputTokens: 1000, outputTokens: 0, cachedInputTokens: 400, cacheWriteTokens: 100, reasoningTokens: 0 }, price)).toBe(1)
    // 2000 × max(1250, 1500) + 256 × 10000 = 5 560 000 → 6
    expect(worstCaseCost(2000, 256, price)).toBe(6)
  })
})
