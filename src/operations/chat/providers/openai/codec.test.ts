import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import type { StreamEvent } from '../../core/ir.ts'
import { SseParser } from '../../../../core/sse.ts'
import { decodeOpenAiError } from '../../../../providers/openai/decode-error.ts'
import { decodeOpenAiResponse } from './decode-response.ts'
import { createOpenAiStreamDecoder } from './decode-stream.ts'

const fixture = (name: string) => readFileSync(new URL(`../../../../../test/fixtures/openai-chat/${name}`, import.meta.url), 'utf8')

/** Feed a recorded stream through the parser in awkward 7-byte pieces, as a network might deliver it. */
function decodeRecorded(name: string): StreamEvent[] {
  const bytes = new TextEncoder().encode(fixture(name))
  const parser = new SseParser()
  const decoder = createOpenAiStreamDecoder()
  const events: StreamEvent[] = []
  for (let offset = 0; offset < bytes.length; offset += 7) {
    for (const event of parser.push(bytes.slice(offset, offset + 7))) events.push(...decoder.decode(event))
  }
  for (const event of parser.finish()) events.push(...decoder.decode(event))
  events.push(...decoder.finish())
  return events
}

describe('OpenAI chat upstream codec (recorded fixtures)', () => {
  test('a recorded tool-call stream becomes one complete tool call with usage', () => {
    const events = decodeRecorded('chat-tool-call-stream.sse')
    const start = events.find((event) => event.type === 'tool-call-start')
    expect(start).toMatchObject({ id: 'call_ZR5UUuTt3pf61kjwAJIYdVMj', name: 'get_capital' })
    const args = events
      .filter((event) => event.type === 'tool-call-delta')
      .map((event) => (event as { arguments: string }).arguments)
      .join('')
    expect(JSON.parse(args)).toEqual({ country: 'UK' })
    expect(events.find((event) => event.type === 'finish')).toEqual({ type: 'finish', reason: 'tool-calls' })
    const usage = events.find((event) => event.type === 'usage')
    expect(usage?.type === 'usage' && usage.usage).toMatchObject({ inputTokens: 53, outputTokens: 15 })
    expect(events.some((event) => event.type === 'error')).toBe(false)
    // Every block is opened before it is fed and closed before the end.
    expect(events.findIndex((event) => event.type === 'tool-call-end')).toBeGreaterThan(
      events.findIndex((event) => event.type === 'tool-call-delta'),
    )
  })

  test('a recorded text stream becomes text deltas that join to the answer', () => {
    const events = decodeRecorded('chat-text-stream.sse')
    const text = events
      .filter((event) => event.type === 'text-delta')
      .map((event) => (event as { text: string }).text)
      .join('')
    expect(text.length).toBeGreaterThan(0)
    expect(events[0]!.type).toBe('start')
    expect(events.filter((event) => event.type === 'text-start')).toHaveLength(1)
    expect(events.find((event) => event.type === 'finish')).toEqual({ type: 'finish', reason: 'stop' })
  })

  test('a refusal stream keeps the refusal text and says it refused', () => {
    const events = decodeRecorded('chat-refusal-stream.sse')
    const text = events
      .filter((event) => event.type === 'text-delta')
      .map((event) => (event as { text: string }).text)
      .join('')
    expect(text).toStartWith("I'm")
    expect(events.some((event) => event.type === 'usage')).toBe(true)
  })

  test('recorded JSON responses decode with tool calls and cached tokens', () => {
    const toolCall = decodeOpenAiResponse(JSON.parse(fixture('chat-tool-call.json')))
    expect(toolCall.finishReason).toBe('tool-calls')
    expect(toolCall.content).toContainEqual(
      expect.objectContaining({ type: 'tool-call', name: 'get_capital', arguments: '{"country":"England"}' }),
    )
    const cached = decodeOpenAiResponse(JSON.parse(fixture('chat-cached-tokens.json')))
    expect(cached.usage?.cachedInputTokens).toBe(4012)
    const text = decodeOpenAiResponse(JSON.parse(fixture('chat-text.json')))
    expect(text.content[0]).toMatchObject({ type: 'text' })
  })

  test('a recorded 400 keeps its message and stays a client error', () => {
    const error = decodeOpenAiError(400, fixture('error-400-invalid-request.json'))
    expect(error.status).toBe(400)
    expect(error.message).toContain('Web search options not supported')
    expect(error.param).toBe('web_search_options')
  })

  test('a stream cut before finish_reason is an error, not a silent end', () => {
    const decoder = createOpenAiStreamDecoder()
    decoder.decode({ data: JSON.stringify({ id: 'x', choices: [{ index: 0, delta: { content: 'half' } }] }) })
    expect(decoder.finish().at(-1)?.type).toBe('error')
  })
})
