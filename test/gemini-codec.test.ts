import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { GoogleGenAI } from '@google/genai'
import type { StreamEvent } from '../src/operations/chat/core/ir.ts'
import { encodeGeminiResponse } from '../src/operations/chat/protocols/gemini/encode-response.ts'
import { encodeGeminiStream } from '../src/operations/chat/protocols/gemini/encode-stream.ts'
import { decodeGeminiResponse } from '../src/operations/chat/providers/gemini/decode-response.ts'
import { createGeminiStreamDecoder } from '../src/operations/chat/providers/gemini/decode-stream.ts'
import { readJsonFixture, readStreamFixture } from './support/fixtures.ts'
import { jsonReply, startUpstream, type TestUpstream } from './support/upstream.ts'

/**
 * Recorded Gemini answers decoded to the IR by the provider, encoded back by the client protocol, then read by the
 * official SDK over a real socket: what a Gemini client gets from a Gemini upstream through the translated path.
 */
let server: TestUpstream
let reply: () => Response
let ai: GoogleGenAI

beforeAll(() => {
  server = startUpstream(() => reply())
  ai = new GoogleGenAI({ apiKey: 'unused', httpOptions: { baseUrl: server.url } })
})
afterAll(() => server.stop())

async function reencodeStream(fixture: string): Promise<string> {
  const decoder = createGeminiStreamDecoder()
  const events: StreamEvent[] = [...readStreamFixture(fixture).flatMap((event) => decoder.decode(event)), ...decoder.finish()]
  async function* replay() {
    yield* events
  }
  let text = ''
  for await (const chunk of encodeGeminiStream(replay(), 'gemini-test', 'resp-1', 'sse')) text += chunk
  return text
}

async function streamThroughSdk(fixture: string) {
  const body = await reencodeStream(fixture)
  reply = () => new Response(body, { headers: { 'content-type': 'text/event-stream' } })
  const chunks = []
  for await (const chunk of await ai.models.generateContentStream({ model: 'gemini-test', contents: 'x' })) chunks.push(chunk)
  return chunks
}

describe('recorded Gemini streams, re-encoded, read by @google/genai', () => {
  test('text: same words, finishReason and full usage on the last chunk, ids on every chunk', async () => {
    const chunks = await streamThroughSdk('gemini/stream-generate-content-text.sse')
    const text = chunks.map((chunk) => chunk.text ?? '').join('')
    expect(text.startsWith('low!\n\nThe sky is blue primarily due to a')).toBe(true)
    expect(text).toHaveLength(1156)
    const last = chunks.at(-1)!
    expect(last.candidates?.[0]?.finishReason as string).toBe('STOP')
    expect(last.usageMetadata).toEqual({ promptTokenCount: 20, candidatesTokenCount: 253, thoughtsTokenCount: 260, totalTokenCount: 533 })
    expect(new Set(chunks.map((chunk) => `${chunk.modelVersion}/${chunk.responseId}`))).toEqual(
      new Set(['gemini-test/tS77aIl-4ZvV7w_A9rTBBg']),
    )
  })

  test('thinking: thoughts flagged, the signature back on the first answer part', async () => {
    const chunks = await streamThroughSdk('gemini/stream-thinking.sse')
    const parts = chunks.flatMap((chunk) => chunk.candidates?.[0]?.content?.parts ?? [])
    const thoughts = parts
      .filter((part) => part.thought)
      .map((part) => part.text)
      .join('')
    expect(thoughts.startsWith('**Clarifying User Goals**')).toBe(true)
    expect(thoughts).toHaveLength(1575)
    const signed = parts.filter((part) => part.thoughtSignature)
    expect(signed).toHaveLength(1)
    expect(signed[0]!.thought).toBeUndefined()
    expect(signed[0]!.text?.startsWith('This is a great question!')).toBe(true)
    expect(signed[0]!.thoughtSignature).toHaveLength(6152)
    expect(chunks.at(-1)!.usageMetadata).toMatchObject({ promptTokenCount: 34, candidatesTokenCount: 469, thoughtsTokenCount: 787 })
  })

  test('function call with thought signature: one whole call, args intact, signature on the call', async () => {
    const chunks = await streamThroughSdk('gemini/stream-function-call-thought-signature.chunks.jsonl')
    const calls = chunks.flatMap((chunk) => chunk.functionCalls ?? [])
    expect(calls).toHaveLength(1)
    expect(calls[0]).toMatchObject({ name: 'weather', args: { location: 'San Francisco' } })
    const part = chunks.flatMap((chunk) => chunk.candidates?.[0]?.content?.parts ?? []).find((item) => item.functionCall)!
    expect(part.thoughtSignature?.startsWith('EqUCCqICAb4')).toBe(true)
    expect(chunks.at(-1)!.candidates?.[0]?.finishReason as string).toBe('STOP')
  })
})

describe('recorded Gemini answers, re-encoded, read by @google/genai', () => {
  for (const [fixture, check] of [
    [
      'gemini/generate-content-function-call.json',
      (response: any) => {
        expect(response.functionCalls).toEqual([
          { id: expect.stringMatching(/^call_/), name: 'customDivide', args: { numerator: 100, denominator: 2 } },
        ])
        expect(response.usageMetadata).toEqual({ promptTokenCount: 21, candidatesTokenCount: 6, totalTokenCount: 27 })
      },
    ],
    [
      'gemini/generate-content-cached-tokens.json',
      (response: any) => {
        expect(JSON.parse(response.text).inner).toEqual({ innerString: 'nestedString', innerNumber: 100 })
        expect(response.usageMetadata).toEqual({
          promptTokenCount: 5,
          candidatesTokenCount: 238,
          thoughtsTokenCount: 41,
          cachedContentTokenCount: 3,
          totalTokenCount: 284,
        })
      },
    ],
    [
      'gemini/generate-content-text.json',
      (response: any) => {
        expect(response.candidates[0].finishReason).toBe('MAX_TOKENS')
        expect(response.text.startsWith('The sky is blue because')).toBe(true)
      },
    ],
  ] as const) {
    test(fixture, async () => {
      const body = encodeGeminiResponse(decodeGeminiResponse(readJsonFixture(fixture)), 'gemini-test', 'fallback-id')
      reply = () => jsonReply(body)
      check(await ai.models.generateContent({ model: 'gemini-test', contents: 'x' }))
    })
  }
})
