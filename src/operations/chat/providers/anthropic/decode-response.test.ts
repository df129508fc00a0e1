import { describe, expect, test } from 'bun:test'
import { costOf } from '../../../../core/pricing.ts'
import { parseUsd } from '../../../../core/money.ts'
import { collect, decodeAll, readFixture } from '../../../../../test/support/anthropic-fixtures.ts'
import { decodeAnthropicError } from '../../../../providers/anthropic/decode-error.ts'
import { decodeAnthropicResponse } from './decode-response.ts'
import { createAnthropicStreamDecoder } from './decode-stream.ts'

const fixture = (name: string) => JSON.parse(readFixture(name))

describe('Anthropic response decoder on recorded bodies', () => {
  test('plain text with its stop reason and usage', () => {
    const response = decodeAnthropicResponse(fixture('messages-text.json'))
    expect(response.id).toBe('msg_01VdEjxAP5ahtHKrrRdNBteQ')
    expect(response.content).toEqual([
      { type: 'text', text: "Hello! I'm doing well, thanks for asking. How are you doing today? Is there anything I can help you with?" },
    ])
    expect(response.finishReason).toBe('stop')
    expect(response.usage).toEqual({ inputTokens: 12, cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens: 29, reasoningTokens: 0 })
  })

  test('text plus two parallel tool calls, each with its own id and input', () => {
    const response = decodeAnthropicResponse(fixture('messages-tool-use-parallel.json'))
    expect(response.finishReason).toBe('tool-calls')
    const calls = response.content.filter((part) => part.type === 'tool-call')
    expect(calls.map((call) => call.id)).toEqual(['toolu_01L8GVQapA1HmggQcrwboukH', 'toolu_01J5Fvzxu7DP1Uh59c1kr5JD'])
    expect(calls.map((call) => JSON.parse(call.arguments))).toEqual([{ count: 1 }, { count: 2 }])
  })

  test('cache reads and writes count inside IR input tokens and are billed at their own prices', () => {
    const response = decodeAnthropicResponse(fixture('messages-cached-tokens.json'))
    expect(response.usage).toEqual({
      inputTokens: 3 + 1111 + 418,
      cachedInputTokens: 1111,
      cacheWriteTokens: 418,
      outputTokens: 33,
      reasoningTokens: 0,
    })
    // $3 input, $0.30 cache read, $3.75 cache write, $15 output per million tokens.
    const price = { input: parseUsd('3'), cachedInput: parseUsd('0.3'), cacheWrite: parseUsd('3.75'), output: parseUsd('15') }
    expect(costOf(response.usage!, price)).toBe(3 * 3000 + 1111 * 300 + 418 * 3750 + 33 * 15000)
  })

  test('a stream keeps message_start cache counts when message_delta reports only output', () => {
    const start = {
      type: 'message_start',
      message: {
        id: 'msg_1',
        model: 'm',
        usage: { input_tokens: 3, cache_read_input_tokens: 1111, cache_creation_input_tokens: 418, output_tokens: 1 },
      },
    }
    const events = [
      start,
      { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 33 } },
      { type: 'message_stop' },
    ].map((payload) => ({ event: payload.type, data: JSON.stringify(payload) }))
    expect(collect(decodeAll(createAnthropicStreamDecoder(), events)).usage).toEqual({
      inputTokens: 1532,
      cachedInputTokens: 1111,
      cacheWriteTokens: 418,
      outputTokens: 33,
      reasoningTokens: 0,
    })
  })

  test('a recorded 404 error body keeps its message and error type', () => {
    const error = decodeAnthropicError(404, readFixture('error-404-not-found.json'))
    expect(error.message).toBe('model: claude-does-not-exist')
    expect<string | undefined>(error.code).toBe('not_found_error')
    expect(error.status).toBeLessThan(500)
  })
})
