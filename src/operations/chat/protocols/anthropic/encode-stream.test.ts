import { describe, expect, test } from 'bun:test'
import Anthropic from '@anthropic-ai/sdk'
import { decodeAll, readFixture, readFixtureEvents } from '../../../../../test/support/anthropic-fixtures.ts'
import { GatewayError } from '../../../../core/errors.ts'
import type { StreamEvent } from '../../core/ir.ts'
import { formatSse, SseParser } from '../../../../core/sse.ts'
import { createAnthropicStreamDecoder } from '../../providers/anthropic/decode-stream.ts'
import { createOpenAiStreamDecoder } from '../../providers/openai/decode-stream.ts'
import { encodeAnthropicStream } from './encode-stream.ts'

async function* from<T>(items: T[]): AsyncGenerator<T> {
  yield* items
}

async function encode(events: StreamEvent[], estimate = 0): Promise<string> {
  let text = ''
  for await (const chunk of encodeAnthropicStream(from(events), 'gateway-model', () => estimate, 'req_test')) text += chunk
  return text
}

/** The official SDK's own stream helper, fed `sse` as if a server had sent it. */
function sdkStream(sse: string) {
  const client = new Anthropic({
    apiKey: 'unused',
    baseURL: 'http://sdk.invalid',
    maxRetries: 0,
    fetch: async () => new Response(sse, { headers: { 'content-type': 'text/event-stream' } }),
  })
  return client.messages.stream({ model: 'gateway-model', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] })
}

/** The recorded upstream bytes as Anthropic sent them (the jsonl form lost its event lines: put them back). */
function rawFixture(name: string): string {
  return name.endsWith('.jsonl')
    ? readFixtureEvents(name)
        .map((event) => formatSse(event.data, event.event))
        .join('')
    : readFixture(name)
}

/** Event names must follow the protocol's grammar and block indexes must run 0, 1, 2… */
function expectProtocolOrder(sse: string) {
  const parser = new SseParser()
  const events = [...parser.push(sse), ...parser.finish()]
  const names = events.map((event) => event.event).join(' ')
  expect(names).toMatch(/^message_start ping( content_block_start( content_block_delta)* content_block_stop)* message_delta message_stop$/)
  const starts = events.filter((event) => event.event === 'content_block_start').map((event) => JSON.parse(event.data).index)
  expect(starts).toEqual(starts.map((_, position) => position))
  for (const event of events) expect(JSON.parse(event.data).type).toBe(event.event!)
}

const streams = [
  'messages-text-stream.chunks.jsonl',
  'messages-tool-use-stream.sse',
  'messages-thinking-stream.sse',
  'messages-tool-use-max-tokens-stream.sse',
]

describe('recorded Anthropic streams, decoded to IR and encoded back, through the official SDK', () => {
  for (const name of streams) {
    test(`${name}: the SDK rebuilds the same message as from Anthropic directly`, async () => {
      const ir = decodeAll(createAnthropicStreamDecoder(), readFixtureEvents(name))
      const sse = await encode(ir)
      expectProtocolOrder(sse)
      const viaGateway = await sdkStream(sse).finalMessage()
      const direct = await sdkStream(rawFixture(name)).finalMessage()
      expect(viaGateway.content).toEqual(direct.content)
      expect(viaGateway.stop_reason).toBe(direct.stop_reason)
      expect(viaGateway.usage.input_tokens).toBe(direct.usage.input_tokens)
      expect(viaGateway.usage.output_tokens).toBe(direct.usage.output_tokens)
      expect(viaGateway.model).toBe('gateway-model')
      expect(viaGateway.id).toBe(direct.id)
    })
  }

  test('thinking keeps its signature for the next turn', async () => {
    const ir = decodeAll(createAnthropicStreamDecoder(), readFixtureEvents('messages-thinking-stream.sse'))
    const message = await sdkStream(await encode(ir)).finalMessage()
    const thinking = message.content[0]!
    expect(thinking.type).toBe('thinking')
    if (thinking.type === 'thinking') expect(thinking.signature).toStartWith('EvMCCkYICxgCKkCHP2c')
  })
})

describe('IR from other upstreams, encoded as Anthropic SSE', () => {
  test('OpenAI parallel tool calls that interleave are streamed one block at a time, inputs complete', async () => {
    const chunk = (delta: unknown, finish: string | null = null) => ({
      data: JSON.stringify({ id: 'chatcmpl-1', model: 'gpt', created: 1, choices: [{ index: 0, delta, finish_reason: finish }] }),
    })
    const chunks = [
      chunk({ role: 'assistant', content: 'Checking both.' }),
      chunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":' } }] }),
      chunk({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '{"zone":' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }),
      chunk({ tool_calls: [{ index: 1, function: { arguments: '"CET"}' } }] }),
      chunk({}, 'tool_calls'),
      {
        data: JSON.stringify({
          id: 'chatcmpl-1',
          choices: [],
          usage: { prompt_tokens: 20, completion_tokens: 9, prompt_tokens_details: { cached_tokens: 4 } },
        }),
      },
      { data: '[DONE]' },
    ]
    const sse = await encode(decodeAll(createOpenAiStreamDecoder(), chunks), 17)
    expectProtocolOrder(sse)
    const stream = sdkStream(sse)
    const message = await stream.finalMessage()
    expect(message.content as unknown[]).toEqual([
      { type: 'text', text: 'Checking both.' },
      { type: 'tool_use', id: 'call_a', name: 'get_weather', input: { city: 'Paris' } },
      { type: 'tool_use', id: 'call_b', name: 'get_time', input: { zone: 'CET' } },
    ])
    expect(message.stop_reason).toBe('tool_use')
    // message_start had only the estimate; message_delta brings the exact counts, cache reads apart from input.
    expect(sse).toContain('"usage":{"input_tokens":17,')
    expect(message.usage).toMatchObject({ input_tokens: 16, cache_read_input_tokens: 4, output_tokens: 9 })
  })

  test("a failure mid-stream ends with event: error, which the SDK throws with Anthropic's error type", async () => {
    const sse = await encode([
      { type: 'start', id: 'x', model: 'm', created: 1 },
      { type: 'text-start', index: 0 },
      { type: 'text-delta', index: 0, text: 'partial' },
      { type: 'error', error: new GatewayError('upstream_unavailable', 'Upstream unavailable: Overloaded') },
    ])
    expect(sse.trimEnd().split('\n\n').at(-1)).toStartWith('event: error\ndata: {"type":"error","error":{"type":"overloaded_error"')
    const error = await sdkStream(sse)
      .finalMessage()
      .catch((caught) => caught)
    expect(error).toBeInstanceOf(Anthropic.APIError)
    expect(error.type).toBe('overloaded_error')
  })
})
