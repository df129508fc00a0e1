import { describe, expect, test } from 'bun:test'
import { parseConfig } from '../../../../config/load.ts'
import type { ChatRequest } from '../../core/ir.ts'
import type { Target } from '../../../../core/provider.ts'
import { encodeAnthropicRequest } from './encode-request.ts'

const config = parseConfig({
  providers: [{ name: 'claude', type: 'anthropic', api_key: 'k' }],
  models: [
    { id: 'claude-test', provider: 'claude', upstream_model: 'claude-real', price: { input: 3, output: 15 }, max_output_tokens: 8192 },
  ],
})
const target: Target = { provider: config.providers[0]!, upstreamModel: 'claude-real', model: config.models[0]! }

function request(overrides: Partial<ChatRequest>): ChatRequest {
  return {
    model: 'claude-test',
    system: [],
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    stream: false,
    ...overrides,
  }
}

describe('IR → Anthropic Messages request', () => {
  test('system goes top-level, max_tokens is always set, the upstream model id is used', () => {
    const { path, body } = encodeAnthropicRequest(request({ system: ['Be brief.', 'Answer in French.'] }), target)
    expect(path).toBe('/v1/messages')
    expect(body.model).toBe('claude-real')
    expect(body.max_tokens).toBe(8192)
    expect(body.system).toEqual([
      { type: 'text', text: 'Be brief.' },
      { type: 'text', text: 'Answer in French.' },
    ])
    expect(body.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'hi' }] }])
  })

  test('a tool round trip: tool_use with an object input, consecutive results merged into one user turn', () => {
    const { body } = encodeAnthropicRequest(
      request({
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'weather in Paris and Rome?' }] },
          {
            role: 'assistant',
            content: [
              { type: 'tool-call', id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
              { type: 'tool-call', id: 'call.2', name: 'get_weather', arguments: '{"city":"Rome"}' },
            ],
          },
          { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_1', content: 'sunny' }] },
          { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call.2', content: 'no such city', isError: true }] },
          { role: 'user', content: [{ type: 'text', text: 'and tomorrow?' }] },
        ],
      }),
      target,
    )
    const messages = body.messages as any[]
    expect(messages).toHaveLength(3)
    expect(messages[1].content[1]).toEqual({ type: 'tool_use', id: 'call_2', name: 'get_weather', input: { city: 'Rome' } })
    expect(messages[2]).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'call_1', content: 'sunny' },
        { type: 'tool_result', tool_use_id: 'call_2', content: 'no such city', is_error: true },
        { type: 'text', text: 'and tomorrow?' },
      ],
    })
  })

  test('thinking: signed blocks go back, unsigned ones from other vendors are left out, a budget fits below max_tokens', () => {
    const { body } = encodeAnthropicRequest(
      request({
        maxOutputTokens: 4000,
        reasoning: { budgetTokens: 10_000 },
        temperature: 0.5,
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'q1' }] },
          {
            role: 'assistant',
            content: [
              { type: 'reasoning', text: 'hmm', signature: 'sig' },
              { type: 'reasoning', text: 'other vendor' },
              { type: 'text', text: 'a1' },
            ],
          },
          { role: 'user', content: [{ type: 'text', text: 'q2' }] },
        ],
      }),
      target,
    )
    expect((body.messages as any[])[1].content).toEqual([
      { type: 'thinking', thinking: 'hmm', signature: 'sig' },
      { type: 'text', text: 'a1' },
    ])
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 3999 })
    expect(body.temperature).toBeUndefined()
  })

  test("tools, tool choice and parallel calls; temperature capped at Anthropic's maximum of 1", () => {
    const { body } = encodeAnthropicRequest(
      request({
        temperature: 1.6,
        stop: ['END'],
        tools: [{ name: 'get_weather', description: 'Weather', parameters: { properties: { city: { type: 'string' } } } }],
        toolChoice: { type: 'required' },
        parallelToolCalls: false,
      }),
      target,
    )
    expect(body.tools).toEqual([
      { name: 'get_weather', description: 'Weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } },
    ])
    expect(body.tool_choice).toEqual({ type: 'any', disable_parallel_tool_use: true })
    expect(body.temperature).toBe(1)
    expect(body.stop_sequences).toEqual(['END'])
  })
})
