import { expect, test } from 'bun:test'
import { countTokens as countWhole } from 'gpt-tokenizer/encoding/o200k_base'
import { countTokens } from './estimate.ts'

const words = ['hello', 'world', 'function', 'const', 'the', 'gateway', '{', '}', '\n', 'Lorem', 'ipsum', '12345', 'état', '日本語']
const prose = Array.from({ length: 300_000 }, (_, index) => words[(index * 7919) % words.length]).join(' ')

test('a long text counted in slices comes within 0.1% of the tokenizer counting it whole', async () => {
  const exact = countWhole(prose)
  expect(Math.abs((await countTokens(prose)) - exact) / exact).toBeLessThan(0.001)
  expect(await countTokens('hello world')).toBe(countWhole('hello world'))
})

test('counting a long text lets timers run in between', async () => {
  let ticks = 0
  const timer = setInterval(() => ticks++, 1)
  await countTokens(prose + prose)
  clearInterval(timer)
  expect(ticks).toBeGreaterThan(5)
})
