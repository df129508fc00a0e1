import { describe, expect, test } from 'bun:test'
import { GatewayError } from '../../../../core/errors.ts'
import { readJsonFixture } from '../../../../../test/support/responses-fixtures.ts'
import { encodeOpenAiError } from '../../../../protocols/openai-chat/encode-error.ts'
import type { Json } from '../../../../protocols/shared/validate.ts'
import { decodeResponsesRequest } from './decode-request.ts'

function failure(body: Json): GatewayError {
  try {
    decodeResponsesRequest(body)
  } catch (error) {
    if (error instanceof GatewayError) return error
    throw error
  }
  throw new Error('expected a 400')
}

describe('decoding what the Codex CLI sends', () => {
  // Captured from `codex exec` 0.169 on its second request of a turn: after it ran the tool the model called.
  const { headers, body } = readJsonFixture('codex-exec-request-turn2.json')

  test('its headers and fields are the ones the gateway was built for', () => {
    expect(headers.authorization).toStartWith('Bearer ')
    expect(body).toMatchObject({
      stream: true,
      store: false,
      include: ['reasoning.encrypted_content'],
      tool_choice: 'auto',
      parallel_tool_calls: true,
      reasoning: { summary: 'auto' },
    })
    expect(typeof body.prompt_cache_key).toBe('string')
    expect(body.previous_response_id).toBeUndefined()
  })

  test('developer messages become the system prompt, in order, one entry per text part', () => {
    const { request } = decodeResponsesRequest(body)
    const developerParts = body.input.filter((item: Json) => item.role === 'developer').flatMap((item: Json) => item.content as Json[])
    expect(request.system).toEqual(developerParts.map((part: Json) => part.text))
    expect(request.system[0]).toStartWith('You are a coding agent running in the Codex CLI')
  })

  test('the turn replays as user, assistant (reasoning + call), tool result, with the reasoning signature restored', () => {
    const { request } = decodeResponsesRequest(body)
    expect(request.messages.map((message) => [message.role, message.content.map((part) => part.type)])).toEqual([
      ['user', ['text']],
      ['user', ['text']],
      ['assistant', ['reasoning', 'tool-call']],
      ['tool', ['tool-result']],
    ])
    const [reasoning, call] = request.messages[2]!.content
    expect(reasoning).toEqual({ type: 'reasoning', text: 'Let me think about that.', signature: 'mock-signature' })
    expect(call).toEqual({ type: 'tool-call', id: 'call_mock_2', name: 'exec_command', arguments: '{"cmd":"Paris"}' })
    const [result] = request.messages[3]!.content
    expect(result).toMatchObject({ type: 'tool-result', toolCallId: 'call_mock_2', name: 'exec_command' })
    expect((result as { content: string }).content).toContain('Paris: command not found')
  })

  test('its functions are offered, namespaced ones flattened, hosted web search left out', () => {
    const { request, context } = decodeResponsesRequest(body)
    const names = request.tools!.map((tool) => tool.name)
    const flat = body.tools.filter((tool: Json) => tool.type === 'function').map((tool: Json) => tool.name)
    const nested = body.tools
      .filter((tool: Json) => tool.type === 'namespace')
      .flatMap((tool: Json) => (tool.tools as Json[]).map((inner) => `${tool.name}__${inner.name}`))
    expect(body.tools.some((tool: Json) => tool.type === 'web_search')).toBe(true)
    expect(names.toSorted()).toEqual([...flat, ...nested].toSorted())
    expect(context.namespaced.get(nested[0])).toEqual({ namespace: 'multi_agent_v1', name: nested[0].slice('multi_agent_v1__'.length) })
    expect(request).toMatchObject({ stream: true, toolChoice: { type: 'auto' }, parallelToolCalls: true, reasoning: { include: true } })
  })
})

describe('decoding other requests', () => {
  test('a string input is one user message; instructions lead the system prompt', () => {
    const { request, context } = decodeResponsesRequest({
      model: 'm',
      input: 'hello',
      instructions: 'Be brief.',
      max_output_tokens: 64,
      temperature: 0.2,
    })
    expect(request).toMatchObject({
      system: ['Be brief.'],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }],
      maxOutputTokens: 64,
      temperature: 0.2,
      stream: false,
    })
    expect(context.echo).toMatchObject({ instructions: 'Be brief.', maxOutputTokens: 64, model: 'm' })
  })

  test('text.format, reasoning effort and a forced function map to the IR', () => {
    const { request } = decodeResponsesRequest({
      model: 'm',
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'hi' },
            { type: 'input_image', image_url: 'data:image/png;base64,AAAA' },
          ],
        },
      ],
      text: { format: { type: 'json_schema', name: 'answer', schema: { type: 'object' }, strict: true } },
      reasoning: { effort: 'xhigh' },
      tools: [
        { type: 'function', name: 'f', parameters: { type: 'object' } },
        { type: 'function', name: 'g' },
      ],
      tool_choice: { type: 'allowed_tools', mode: 'required', tools: [{ type: 'function', name: 'g' }] },
    })
    expect(request.responseFormat).toEqual({ type: 'json-schema', name: 'answer', schema: { type: 'object' }, strict: true })
    expect(request.reasoning).toEqual({ effort: 'high' })
    expect(request.messages[0]!.content[1]).toEqual({ type: 'image', mediaType: 'image/png', data: 'AAAA' })
    expect(request.tools!.map((tool) => tool.name)).toEqual(['g'])
    expect(request.toolChoice).toEqual({ type: 'required' })
  })

  test("a function output made of parts keeps its text as the result and its image as the result's media", () => {
    const { request } = decodeResponsesRequest({
      model: 'm',
      input: [
        { type: 'function_call', call_id: 'c1', name: 'view_image', arguments: '{}' },
        {
          type: 'function_call_output',
          call_id: 'c1',
          output: [
            { type: 'input_text', text: 'here' },
            { type: 'input_image', image_url: 'https://x/y.png' },
          ],
        },
      ],
    })
    expect(request.messages[1]).toEqual({
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: 'c1', name: 'view_image', content: 'here', media: [{ type: 'image', url: 'https://x/y.png' }] },
      ],
    })
  })
})

describe('400s name the field, in the shape of the recorded API error', () => {
  const recorded = readJsonFixture('error-400-invalid-request.json')

  test('temperature out of range, like the recorded one', () => {
    const error = failure({ model: 'm', input: 'x', temperature: -1 })
    const body = encodeOpenAiError(error)
    expect(Object.keys(body.error).toSorted()).toEqual(Object.keys(recorded.error).toSorted())
    expect(body.error).toMatchObject({ type: recorded.error.type, param: recorded.error.param })
    expect(error.status).toBe(400)
  })

  const cases: [string, Json, string, RegExp][] = [
    ['previous_response_id', { model: 'm', input: 'x', previous_response_id: 'resp_1' }, 'previous_response_id', /stateless/],
    ['item_reference', { model: 'm', input: [{ type: 'item_reference', id: 'msg_1' }] }, 'input[0].id', /stateless/],
    ['conversation', { model: 'm', input: 'x', conversation: 'conv_1' }, 'conversation', /stateless/],
    ['background', { model: 'm', input: 'x', background: true }, 'background', /stateless/],
    [
      'an uploaded file as image',
      { model: 'm', input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'file_1' }] }] },
      'input[0].content[0].file_id',
      /stateless/,
    ],
    [
      'a hosted tool',
      { model: 'm', input: 'x', tools: [{ type: 'code_interpreter', container: { type: 'auto' } }] },
      'tools[0].type',
      /'code_interpreter' tools are not supported/,
    ],
    [
      'a custom tool',
      { model: 'm', input: 'x', tools: [{ type: 'custom', name: 'apply_patch' }] },
      'tools[0].type',
      /only 'function' tools/,
    ],
    [
      'an unknown forced function',
      { model: 'm', input: 'x', tools: [], tool_choice: { type: 'function', name: 'nope' } },
      'tool_choice.name',
      /no function named 'nope'/,
    ],
    [
      'an uploaded file',
      { model: 'm', input: [{ role: 'user', content: [{ type: 'input_file', file_id: 'file-1' }] }] },
      'input[0].content[0].file_id',
      /uploaded file/,
    ],
    [
      'an audio part',
      { model: 'm', input: [{ role: 'user', content: [{ type: 'input_audio', input_audio: {} }] }] },
      'input[0].content[0].type',
      /'input_audio' content is not supported/,
    ],
    ['a bad role', { model: 'm', input: [{ role: 'tool', content: 'x' }] }, 'input[0].role', /'tool' is not one of/],
    ['no input', { model: 'm' }, 'input', /Missing required parameter/],
    ['no model', { input: 'x' }, 'model', /Missing required parameter/],
    ['top_p above 1', { model: 'm', input: 'x', top_p: 1.5 }, 'top_p', /between 0 and 1/],
    ['a bad reasoning effort', { model: 'm', input: 'x', reasoning: { effort: 'max' } }, 'reasoning.effort', /expected one of/],
    [
      'a function call without call_id',
      { model: 'm', input: [{ type: 'function_call', name: 'f', arguments: '{}' }] },
      'input[0].call_id',
      /expected a string/,
    ],
    [
      'an unknown item type',
      { model: 'm', input: [{ type: 'compaction', encrypted_content: 'x' }] },
      'input[0].type',
      /'compaction' items are not supported/,
    ],
  ]
  for (const [what, body, param, message] of cases) {
    test(`${what} → 400 on '${param}'`, () => {
      const error = failure(body)
      expect(error.status).toBe(400)
      expect(error.param).toBe(param)
      expect(error.message).toMatch(message)
    })
  }
})
