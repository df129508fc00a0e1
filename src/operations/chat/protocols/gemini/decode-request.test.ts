import { describe, expect, test } from 'bun:test'
import { GatewayError } from '../../../../core/errors.ts'
import { decodeGeminiRequest } from './decode-request.ts'

const user = (text: string) => ({ role: 'user', parts: [{ text }] })

function rejection(body: Record<string, unknown>): GatewayError {
  try {
    decodeGeminiRequest(body, 'm', false)
  } catch (error) {
    if (error instanceof GatewayError) return error
    throw error
  }
  throw new Error('expected a 400')
}

describe('gemini decodeRequest', () => {
  test('the PROTOCOLS.md example: history, system, tools and config reach the IR', () => {
    const request = decodeGeminiRequest(
      {
        contents: [
          user('divide 10'),
          { role: 'model', parts: [{ functionCall: { name: 'customDivide', args: { numerator: 10 } } }] },
          { role: 'user', parts: [{ functionResponse: { name: 'customDivide', response: { output: 42 } } }] },
        ],
        systemInstruction: { parts: [{ text: 'Be exact.' }] },
        tools: [{ functionDeclarations: [{ name: 'customDivide', description: 'Divides', parametersJsonSchema: { type: 'object' } }] }],
        toolConfig: { functionCallingConfig: { mode: 'AUTO' } },
        generationConfig: {
          maxOutputTokens: 20,
          candidateCount: 1,
          temperature: 0.5,
          stopSequences: [],
          thinkingConfig: { includeThoughts: true },
        },
      },
      'gemini-x',
      true,
    )
    expect(request).toMatchObject({
      model: 'gemini-x',
      stream: true,
      system: ['Be exact.'],
      maxOutputTokens: 20,
      temperature: 0.5,
      stop: [],
      toolChoice: { type: 'auto' },
      reasoning: { include: true },
    })
    expect(request.tools).toEqual([{ name: 'customDivide', description: 'Divides', parameters: { type: 'object' } }])
    expect(request.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'divide 10' }] },
      { role: 'assistant', content: [{ type: 'tool-call', id: 'call_0', name: 'customDivide', arguments: '{"numerator":10}' }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_0', name: 'customDivide', content: '{"output":42}' }] },
    ])
  })

  test('responses without ids pair with calls by name, then by order; ids are stable and upstream-safe', () => {
    const request = decodeGeminiRequest(
      {
        contents: [
          user('go'),
          {
            role: 'model',
            parts: [
              { functionCall: { name: 'a', args: {} } },
              { functionCall: { name: 'b', args: {} } },
              { functionCall: { id: 'x.y/z', name: 'c' } },
            ],
          },
          {
            role: 'user',
            parts: [
              { functionResponse: { name: 'b', response: { output: 'B' } } },
              { functionResponse: { id: 'x.y/z', name: 'c', response: { output: 'C' } } },
              { functionResponse: { name: 'renamed', response: { error: { reason: 'boom' } } } },
              { text: 'and now?' },
            ],
          },
        ],
      },
      'm',
      false,
    )
    expect(request.messages[1]!.content.map((part) => (part as { id: string }).id)).toEqual(['call_0', 'call_1', 'x_y_z'])
    expect(request.messages[2]).toEqual({
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: 'call_1', name: 'b', content: 'B' },
        { type: 'tool-result', toolCallId: 'x_y_z', name: 'c', content: 'C' },
        { type: 'tool-result', toolCallId: 'call_0', name: 'renamed', content: '{"reason":"boom"}', isError: true },
      ],
    })
    expect(request.messages[3]).toEqual({ role: 'user', content: [{ type: 'text', text: 'and now?' }] })
  })

  test('thoughts and signatures in the history are kept as IR reasoning', () => {
    const request = decodeGeminiRequest(
      {
        contents: [
          user('q'),
          {
            role: 'model',
            parts: [
              { text: 'pondering', thought: true },
              { text: 'answer', thoughtSignature: 'SIG' },
              { functionCall: { name: 'f', args: {} }, thoughtSignature: 'SIG2' },
            ],
          },
        ],
      },
      'm',
      false,
    )
    expect(request.messages[1]!.content).toEqual([
      { type: 'reasoning', text: 'pondering', signature: 'SIG' },
      { type: 'text', text: 'answer' },
      { type: 'reasoning', text: '', signature: 'SIG2' },
      { type: 'tool-call', id: 'call_0', name: 'f', arguments: '{}' },
    ])
  })

  test('OpenAPI parameters and responseSchema become JSON Schema; ANY with names narrows the tools', () => {
    const request = decodeGeminiRequest(
      {
        contents: [user('x')],
        tools: [
          {
            functionDeclarations: [
              {
                name: 'f',
                parameters: {
                  type: 'OBJECT',
                  properties: { n: { type: 'INTEGER', nullable: true }, tags: { type: 'ARRAY', items: { type: 'STRING' } } },
                  required: ['n'],
                  propertyOrdering: ['n', 'tags'],
                },
              },
              { name: 'g' },
            ],
          },
          { googleSearch: {} },
        ],
        tool_config: { function_calling_config: { mode: 'ANY', allowed_function_names: ['f'] } },
        generation_config: {
          response_mime_type: 'application/json',
          response_schema: { type: 'OBJECT', properties: { ok: { type: 'BOOLEAN' } } },
          thinking_config: { thinking_budget: 0 },
        },
      },
      'm',
      false,
    )
    expect(request.tools).toEqual([
      {
        name: 'f',
        description: undefined,
        parameters: {
          type: 'object',
          properties: { n: { type: ['integer', 'null'] }, tags: { type: 'array', items: { type: 'string' } } },
          required: ['n'],
        },
      },
    ])
    expect(request.toolChoice).toEqual({ type: 'tool', name: 'f' })
    expect(request.responseFormat).toEqual({ type: 'json-schema', schema: { type: 'object', properties: { ok: { type: 'boolean' } } } })
    expect(request.reasoning).toEqual({ budgetTokens: 0, effort: 'minimal' })
  })

  test('each text part of systemInstruction is one IR instruction; a plain string is accepted too', () => {
    expect(
      decodeGeminiRequest({ contents: [user('x')], systemInstruction: { role: 'user', parts: [{ text: 'A' }, { text: 'B' }] } }, 'm', false)
        .system,
    ).toEqual(['A', 'B'])
    expect(decodeGeminiRequest({ contents: [user('x')], system_instruction: 'Be brief.' }, 'm', false).system).toEqual(['Be brief.'])
  })

  test('bad fields are 400s that name the field', () => {
    const cases: [Record<string, unknown>, string][] = [
      [{}, 'contents'],
      [{ contents: [] }, 'contents'],
      [{ contents: [{ role: 'assistant', parts: [{ text: 'x' }] }] }, 'contents[0].role'],
      [{ contents: [{ parts: [{ text: 5 }] }] }, 'contents[0].parts[0].text'],
      [{ contents: [{ parts: [{}] }] }, 'contents[0].parts[0]'],
      [{ contents: [{ parts: [{ functionCall: { args: {} } }] }] }, 'contents[0].parts[0].functionCall.name'],
      [{ contents: [user('x')], generationConfig: { temperature: 2.5 } }, 'generationConfig.temperature'],
      [{ contents: [user('x')], generationConfig: { candidateCount: 2 } }, 'generationConfig.candidateCount'],
      [{ contents: [user('x')], generationConfig: { stopSequences: ['a', 'b', 'c', 'd', 'e'] } }, 'generationConfig.stopSequences'],
      [{ contents: [user('x')], generationConfig: { maxOutputTokens: 0 } }, 'generationConfig.maxOutputTokens'],
      [
        { contents: [user('x')], generationConfig: { thinkingConfig: { thinkingLevel: 'EXTREME' } } },
        'generationConfig.thinkingConfig.thinkingLevel',
      ],
      [{ contents: [user('x')], generationConfig: { responseMimeType: 'text/csv' } }, 'generationConfig.responseMimeType'],
      [{ contents: [user('x')], toolConfig: { functionCallingConfig: { mode: 'SOMETIMES' } } }, 'toolConfig.functionCallingConfig.mode'],
      [
        { contents: [user('x')], tools: [{ functionDeclarations: [{ name: 'f', parameters: {}, parametersJsonSchema: {} }] }] },
        'tools[0].functionDeclarations[0]',
      ],
    ]
    for (const [body, field] of cases) {
      const error = rejection(body)
      expect({ field, status: error.status, param: error.param }).toEqual({ field, status: 400, param: field })
      expect(error.message).toContain(`'${field}'`)
    }
  })
})
