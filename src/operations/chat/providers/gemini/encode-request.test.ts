import { describe, expect, test } from 'bun:test'
import type { ChatRequest } from '../../core/ir.ts'
import type { Target } from '../../../../core/provider.ts'
import { encodeGeminiRequest } from './encode-request.ts'

const target = { upstreamModel: 'gemini-2.5-flash', provider: {}, model: {} } as unknown as Target

function request(overrides: Partial<ChatRequest>): ChatRequest {
  return { model: 'm', system: [], messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], stream: false, ...overrides }
}

describe('gemini encodeRequest', () => {
  test('picks the method by streaming and puts the upstream model in the path', () => {
    expect(encodeGeminiRequest(request({}), target).path).toBe('/v1beta/models/gemini-2.5-flash:generateContent')
    expect(encodeGeminiRequest(request({ stream: true }), target).path).toBe(
      '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
    )
  })

  test('a tool round trip from an OpenAI client: results named after their call, one user turn, placeholder signature', () => {
    const { body } = encodeGeminiRequest(
      request({
        system: ['Be brief.', 'Use tools.'],
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'weather in Paris and Rome?' }] },
          {
            role: 'assistant',
            content: [
              { type: 'tool-call', id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}' },
              { type: 'tool-call', id: 'call_b', name: 'get_time', arguments: '{"city":"Rome"}' },
            ],
          },
          {
            role: 'tool',
            content: [
              { type: 'tool-result', toolCallId: 'call_a', content: '{"temp":21}' },
              { type: 'tool-result', toolCallId: 'call_b', content: 'noon' },
            ],
          },
          { role: 'user', content: [{ type: 'text', text: 'thanks' }] },
        ],
      }),
      target,
    )
    expect(body.systemInstruction).toEqual({ parts: [{ text: 'Be brief.' }, { text: 'Use tools.' }] })
    const contents = body.contents as { role: string; parts: Record<string, any>[] }[]
    expect(contents.map((content) => content.role)).toEqual(['user', 'model', 'user'])
    expect(contents[1]!.parts).toEqual([
      { functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'skip_thought_signature_validator' },
      { functionCall: { name: 'get_time', args: { city: 'Rome' } } },
    ])
    expect(contents[2]!.parts).toEqual([
      { functionResponse: { name: 'get_weather', response: { temp: 21 } } },
      { functionResponse: { name: 'get_time', response: { output: 'noon' } } },
      { text: 'thanks' },
    ])
  })

  test('a Gemini signature carried in the IR goes back on the part after the thinking', () => {
    const { body } = encodeGeminiRequest(
      request({
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'q' }] },
          {
            role: 'assistant',
            content: [
              { type: 'reasoning', text: 'thinking…', signature: 'SIG1' },
              { type: 'text', text: 'answer' },
              { type: 'reasoning', text: '', signature: 'SIG2' },
              { type: 'tool-call', id: 'c1', name: 'f', arguments: '' },
            ],
          },
        ],
      }),
      target,
    )
    const model = (body.contents as { parts: unknown[] }[])[1]!
    expect(model.parts).toEqual([
      { text: 'thinking…', thought: true },
      { text: 'answer', thoughtSignature: 'SIG1' },
      { functionCall: { name: 'f', args: {} }, thoughtSignature: 'SIG2' },
    ])
  })

  test('tools as parametersJsonSchema without $schema/strict; choice, format and thinking in their Gemini places', () => {
    const { body } = encodeGeminiRequest(
      request({
        tools: [
          {
            name: 'get_weather',
            description: 'Weather',
            strict: true,
            parameters: {
              $schema: 'http://json-schema.org/draft-07/schema#',
              type: 'object',
              properties: { city: { type: 'string' } },
              additionalProperties: false,
            },
          },
        ],
        toolChoice: { type: 'tool', name: 'get_weather' },
        maxOutputTokens: 100,
        temperature: 0.5,
        topP: 0.9,
        topK: 40,
        stop: ['END'],
        seed: 7,
        responseFormat: { type: 'json-schema', schema: { type: 'object', properties: { a: { type: 'number' } } } },
        reasoning: { effort: 'low' },
      }),
      target,
    )
    expect(body.tools).toEqual([
      {
        functionDeclarations: [
          {
            name: 'get_weather',
            description: 'Weather',
            parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } }, additionalProperties: false },
          },
        ],
      },
    ])
    expect(body.toolConfig).toEqual({ functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] } })
    expect(body.generationConfig).toEqual({
      maxOutputTokens: 100,
      temperature: 0.5,
      topP: 0.9,
      topK: 40,
      stopSequences: ['END'],
      seed: 7,
      responseMimeType: 'application/json',
      responseJsonSchema: { type: 'object', properties: { a: { type: 'number' } } },
      thinkingConfig: { thinkingBudget: 1024 },
    })
  })

  test('an Anthropic-style thinking budget asks Gemini to show its thoughts', () => {
    const { body } = encodeGeminiRequest(request({ reasoning: { budgetTokens: 2048 } }), target)
    expect(body.generationConfig).toEqual({ thinkingConfig: { thinkingBudget: 2048, includeThoughts: true } })
  })
})
