import { describe, expect, test } from 'bun:test'
import { collect, decodeAll, readFixture, readFixtureEvents } from '../../../../../test/support/anthropic-fixtures.ts'
import { createAnthropicStreamDecoder } from './decode-stream.ts'

const decode = (name: string) => decodeAll(createAnthropicStreamDecoder(), readFixtureEvents(name))

describe('Anthropic stream decoder on recorded streams', () => {
  test('plain text: one block, the whole text, end_turn, usage from message_start and message_delta merged', () => {
    const events = decode('messages-text-stream.chunks.jsonl')
    expect(events[0]).toMatchObject({ type: 'start', id: 'msg_01QC4g3HwBThD4BaNtBckFDJ', model: 'claude-sonnet-4-5-20250929' })
    const result = collect(events)
    expect(result.text).toEqual([
      "Hello! I'm doing well, thank you for asking. How are you doing today? Is there anything I can help you with?",
    ])
    expect(result.finish).toBe('stop')
    expect(result.usage).toMatchObject({ inputTokens: 12, outputTokens: 30, cachedInputTokens: 0 })
    expect(result.unclosed).toBe(0)
    expect(result.error).toBeUndefined()
  })

  test('input usage is reported as soon as message_start arrives, before any content', () => {
    const events = decode('messages-tool-use-stream.sse')
    expect(events[1]).toEqual({
      type: 'usage',
      usage: { inputTokens: 377, cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens: 1, reasoningTokens: 0 },
    })
  })

  test('tool use: input_json_delta fragments reassemble into the complete input', () => {
    const result = collect(decode('messages-tool-use-stream.sse'))
    expect(result.text).toEqual(["I'll check the current weather in Paris for you."])
    expect(result.tools).toHaveLength(1)
    expect(result.tools[0]!.id).toBe('toolu_01NRLabsLyVHZPKxbKvkfSMn')
    expect(result.tools[0]!.name).toBe('get_weather')
    expect(JSON.parse(result.tools[0]!.arguments)).toEqual({ location: 'Paris' })
    expect(result.finish).toBe('tool-calls')
    expect(result.usage).toMatchObject({ inputTokens: 377, outputTokens: 65 })
  })

  test('thinking: the thinking text and its signature survive, then the answer text (despite the padded JSON)', () => {
    const result = collect(decode('messages-thinking-stream.sse'))
    expect(result.reasoning).toHaveLength(1)
    expect(result.reasoning[0]!.text).toStartWith('This is a straightforward question about pedestrian safety.')
    expect(result.reasoning[0]!.text).toEndWith('help prevent accidents.')
    const signature = /"signature":"(E[^"]+)"/.exec(readFixture('messages-thinking-stream.sse'))![1]
    expect(result.reasoning[0]!.signature).toBe(signature)
    expect(result.text[0]).toEndWith('prioritize safety over speed when crossing streets.')
    expect(result.usage).toMatchObject({ inputTokens: 43, outputTokens: 282 })
    expect(result.unclosed).toBe(0)
  })

  test('a tool input cut by max_tokens: the block is still closed, the partial JSON kept, finish is length', () => {
    const result = collect(decode('messages-tool-use-max-tokens-stream.sse'))
    expect(result.tools[0]!.name).toBe('make_file')
    expect(result.tools[0]!.arguments).toStartWith('{"filename": "taxes.txt", "lines_of_text": [\n"# COMPREHENSIVE TAX GUIDE')
    expect(result.tools[0]!.arguments).toEndWith('\n"Filing taxes')
    expect(result.unclosed).toBe(0)
    expect(result.finish).toBe('length')
    expect(result.usage).toMatchObject({ inputTokens: 450, outputTokens: 124 })
    expect(result.error).toBeUndefined()
  })

  test('a stream cut before message_delta ends in an error, never a silent success', () => {
    const events = readFixtureEvents('messages-tool-use-stream.sse').slice(0, 6)
    const result = collect(decodeAll(createAnthropicStreamDecoder(), events))
    expect(result.error?.message).toContain('ended before the answer was complete')
  })

  test('an error event mid-stream becomes an IR error of the matching kind', () => {
    const events = [
      ...readFixtureEvents('messages-tool-use-stream.sse').slice(0, 4),
      { event: 'error', data: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}' },
    ]
    const decoded = createAnthropicStreamDecoder()
    const result = collect(events.flatMap((event) => decoded.decode(event)))
    expect(result.error?.kind).toBe('upstream_unavailable')
    expect(result.error?.message).toContain('Overloaded')
    expect(result.unclosed).toBe(0)
  })
})
