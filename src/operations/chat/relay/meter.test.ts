import { describe, expect, test } from 'bun:test'
import { countTokens } from '../../../core/estimate.ts'
import type { ChatRequest } from '../core/ir.ts'
import { ChatMeter } from './meter.ts'

const request: ChatRequest = {
  model: 'm',
  system: ['Be brief.'],
  messages: [{ role: 'user', content: [{ type: 'text', text: 'Tell me about rivers.' }] }],
  stream: true,
}
const reported = { inputTokens: 40, cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens: 90, reasoningTokens: 0 }

describe('ChatMeter', () => {
  test('a complete answer with usage bills the report; without usage, the estimate of prompt and answer', async () => {
    const withUsage = new ChatMeter(request)
    withUsage.observe({ type: 'text-delta', index: 0, text: 'Rivers flow.' })
    withUsage.observe({ type: 'usage', usage: reported })
    expect(withUsage.finalReport()).toBeUndefined() // not read to its end yet
    withUsage.ended = true
    expect(withUsage.finalReport()).toEqual(reported)

    const without = new ChatMeter(request)
    without.observe({ type: 'text-delta', index: 0, text: 'Rivers flow downhill to the sea.' })
    without.observe({ type: 'finish', reason: 'stop' })
    without.ended = true
    expect(without.finalReport()).toBeUndefined()
    const usage = await without.estimatedUsage()
    expect(usage.estimated).toBe(true)
    expect(usage.outputTokens).toBe(await countTokens('Rivers flow downhill to the sea.'))
    expect(usage.inputTokens).toBeGreaterThan(5)
  })

  test("an answer cut short keeps a partial report's input and bills at least the text produced", async () => {
    const meter = new ChatMeter(request)
    expect(meter.begun).toBe(false)
    meter.observe({ type: 'usage', usage: { ...reported, outputTokens: 1 } })
    expect(meter.begun).toBe(false)
    const text = 'Rivers carve valleys over thousands of years, carrying sediment'
    meter.observe({ type: 'text-delta', index: 0, text })
    expect(meter.begun).toBe(true)
    const usage = await meter.estimatedUsage()
    expect(usage).toMatchObject({ inputTokens: 40, outputTokens: await countTokens(text), estimated: true })
  })
})
