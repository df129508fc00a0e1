import { describe, expect, test } from 'bun:test'
import type { StreamEvent } from '../../core/ir.ts'
import type { SseEvent } from '../../../../core/sse.ts'
import { readFixture, readJsonFixture, readStreamFixture } from '../../../../../test/support/fixtures.ts'
import { decodeGeminiError } from '../../../../providers/gemini/decode-error.ts'
import { decodeGeminiResponse } from './decode-response.ts'
import { createGeminiStreamDecoder } from './decode-stream.ts'

function decodeStream(events: SseEvent[]): StreamEvent[] {
  const decoder = createGeminiStreamDecoder()
  return [...events.flatMap((event) => decoder.decode(event)), ...decoder.finish()]
}

const joined = (events: StreamEvent[], type: 'text-delta' | 'reasoning-delta') =>
  events.map((event) => (event.type === type ? event.text : '')).join('')

describe('gemini decodeResponse (recorded answers)', () => {
  test('text cut by MAX_TOKENS: output counts thoughts, reasoning is reported apart', () => {
    const response = decodeGeminiResponse(readJsonFixture('gemini/generate-content-text.json'))
    expect(response.content).toHaveLength(1)
    expect(response.content[0]).toMatchObject({ type: 'text' })
    expect(
      (response.content[0] as { text: string }).text.startsWith('The sky is blue because of something called **Rayleigh Scattering**.'),
    ).toBe(true)
    expect(response.finishReason).toBe('length')
    expect(response.usage).toEqual({
      inputTokens: 7,
      cachedInputTokens: 0,
      cacheWriteTokens: 0,
      outputTokens: 149 + 48,
      reasoningTokens: 48,
    })
    expect(response.id).toBe('jy77aN2dK5v_1e8PlvqtsQ8')
    expect(response.model).toBe('gemini-2.5-flash')
  })

  test('a function call gets an id, its args as a JSON string, and finishes as tool-calls', () => {
    const response = decodeGeminiResponse(readJsonFixture('gemini/generate-content-function-call.json'))
    const call = response.content.find((part) => part.type === 'tool-call')!
    expect(call).toMatchObject({ type: 'tool-call', name: 'customDivide' })
    if (call.type !== 'tool-call') throw new Error('not a call')
    expect(JSON.parse(call.arguments)).toEqual({ numerator: 100, denominator: 2 })
    expect(call.id).toMatch(/^call_[A-Za-z0-9]{22}$/)
    expect(response.finishReason).toBe('tool-calls')
    expect(response.usage?.inputTokens).toBe(21)
    expect(response.usage?.outputTokens).toBe(6)
  })

  test('implicitly cached prompt tokens are reported as cached input', () => {
    const response = decodeGeminiResponse(readJsonFixture('gemini/generate-content-cached-tokens.json'))
    expect(response.usage).toEqual({
      inputTokens: 5,
      cachedInputTokens: 3,
      cacheWriteTokens: 0,
      outputTokens: 238 + 41,
      reasoningTokens: 41,
    })
    expect(JSON.parse((response.content[0] as { text: string }).text).simpleString).toBe('example')
  })
})

describe('gemini stream decoder (recorded streams)', () => {
  test('plain text in six chunks: one text block, final usage once per change', () => {
    const events = decodeStream(readStreamFixture('gemini/stream-generate-content-text.sse'))
    expect(events[0]).toMatchObject({ type: 'start', id: 'tS77aIl-4ZvV7w_A9rTBBg', model: 'gemini-2.5-flash' })
    expect(events.filter((event) => event.type === 'text-start')).toHaveLength(1)
    const text = joined(events, 'text-delta')
    expect(text.startsWith('low!\n\nThe sky is blue primarily due to a')).toBe(true)
    expect(text.endsWith('perceive the sky as blue rather than violet.')).toBe(true)
    expect(events.filter((event) => event.type === 'finish')).toEqual([{ type: 'finish', reason: 'stop' }])
    const usages = events.filter((event) => event.type === 'usage')
    expect(usages.at(-1)).toEqual({
      type: 'usage',
      usage: { inputTokens: 20, cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens: 253 + 260, reasoningTokens: 260 },
    })
    expect(events.some((event) => event.type === 'error')).toBe(false)
  })

  test('thought summaries become one reasoning block whose signature comes from the first answer part', () => {
    const events = decodeStream(readStreamFixture('gemini/stream-thinking.sse'))
    const reasoning = joined(events, 'reasoning-delta')
    expect(reasoning.startsWith('**Clarifying User Goals**')).toBe(true)
    expect(reasoning).toHaveLength(1575)
    const signature = events.find((event) => event.type === 'reasoning-signature')
    expect(signature).toMatchObject({ index: 0 })
    expect((signature as { signature: string }).signature.startsWith('CiIB0e2Kb6')).toBe(true)
    expect((signature as { signature: string }).signature).toHaveLength(6152)
    // Order: the reasoning block closes (with its signature) before the answer's text block opens.
    const types = events.map((event) => event.type)
    expect(types.indexOf('reasoning-signature')).toBeLessThan(types.indexOf('reasoning-end'))
    expect(types.indexOf('reasoning-end')).toBeLessThan(types.indexOf('text-start'))
    expect(joined(events, 'text-delta')).toHaveLength(1938)
    expect(events.filter((event) => event.type === 'usage').at(-1)).toMatchObject({
      usage: { inputTokens: 34, outputTokens: 469 + 787, reasoningTokens: 787 },
    })
  })

  test('a whole functionCall with a thought signature (Gemini 3): signature kept, args complete', () => {
    const events = decodeStream(readStreamFixture('gemini/stream-function-call-thought-signature.chunks.jsonl'))
    const types = events.map((event) => event.type)
    // Usage goes before the chunk's parts: the prompt's size is known before the answer (Anthropic's message_start).
    expect(types).toEqual([
      'start',
      'usage',
      'reasoning-start',
      'reasoning-signature',
      'reasoning-end',
      'tool-call-start',
      'tool-call-delta',
      'tool-call-end',
      'finish',
    ])
    expect((events[3] as { signature: string }).signature.startsWith('EqUCCqICAb4')).toBe(true)
    expect(events[5]).toMatchObject({ name: 'weather', index: 1 })
    expect(JSON.parse((events[6] as { arguments: string }).arguments)).toEqual({ location: 'San Francisco' })
    expect(events.at(-1)).toEqual({ type: 'finish', reason: 'tool-calls' })
    expect(events[1]).toMatchObject({ usage: { inputTokens: 29, outputTokens: 15 + 45, reasoningTokens: 45 } })
  })

  test('a call, finish and usage in a single chunk', () => {
    const events = decodeStream(readStreamFixture('gemini/stream-generate-content-function-call.sse'))
    expect(events.map((event) => event.type)).toEqual(['start', 'usage', 'tool-call-start', 'tool-call-delta', 'tool-call-end', 'finish'])
    expect(JSON.parse((events[3] as { arguments: string }).arguments)).toEqual({ denominator: 2, numerator: 100 })
  })

  test('an error chunk mid-stream is a final error event with the upstream status', () => {
    const decoder = createGeminiStreamDecoder()
    const first = decoder.decode({ data: '{"candidates":[{"content":{"role":"model","parts":[{"text":"Hel"}]}}]}' })
    const failed = decoder.decode({ data: '{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}' })
    expect(first.map((event) => event.type)).toEqual(['start', 'text-start', 'text-delta'])
    expect(failed.map((event) => event.type)).toEqual(['text-end', 'error'])
    const error = (failed[1] as Extract<StreamEvent, { type: 'error' }>).error
    expect(error.status).toBe(503)
    expect(error.message).toContain('The model is overloaded.')
  })

  test('a body that ends without a finish reason is an error, not a silent cut', () => {
    const events = decodeStream([{ data: '{"candidates":[{"content":{"role":"model","parts":[{"text":"Hel"}]}}]}' }])
    expect(events.at(-1)?.type).toBe('error')
  })
})

describe('gemini decodeError', () => {
  test('the recorded 404 (a JSON body sent as text/event-stream) keeps its message', () => {
    const error = decodeGeminiError(404, readFixture('gemini/error-404-not-found.json'))
    expect(error.message).toStartWith('models/custom-gemini-2.0-flash is not found for API version v1beta')
    expect<string | undefined>(error.code).toBe('NOT_FOUND')
    // An upstream 404 is the gateway's routing problem, told to the client as a bad request (map-upstream-status).
    expect(error.status).toBe(400)
  })

  test('RetryInfo on a 429 becomes the retry delay', () => {
    const body = JSON.stringify({
      error: {
        code: 429,
        message: 'Quota exceeded',
        status: 'RESOURCE_EXHAUSTED',
        details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '17s' }],
      },
    })
    const error = decodeGeminiError(429, body)
    expect(error.status).toBe(429)
    expect(error.retryAfter).toBe(17)
  })
})
