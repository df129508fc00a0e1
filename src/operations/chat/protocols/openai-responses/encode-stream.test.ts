import { describe, expect, test } from 'bun:test'
import { GatewayError } from '../../../../core/errors.ts'
import { readErrorCode } from '../../../../core/error-codes.ts'
import type { StreamEvent } from '../../core/ir.ts'
import { SseParser } from '../../../../core/sse.ts'
import {
  itemFacts,
  keysOf,
  type Recorded,
  readStreamFixture,
  recordedToIr,
  replay,
  sdkReading,
  toSse,
  usageFromRecorded,
} from '../../../../../test/support/responses-fixtures.ts'
import { decodeResponsesRequest } from './decode-request.ts'
import { encodeResponsesStream } from './encode-stream.ts'

/** Encode IR events for a request like the recorded one; returns the SSE text and its parsed events. */
async function encode(events: StreamEvent[], body: Recorded = { model: 'gpt-test', input: 'hi' }) {
  const { context } = decodeResponsesRequest(body)
  let sse = ''
  for await (const chunk of encodeResponsesStream(replay(events), context)) sse += chunk
  const parser = new SseParser()
  const parsed = [...parser.push(sse), ...parser.finish()]
  for (const event of parsed) expect(JSON.parse(event.data).type).toBe(event.event!)
  return { sse, events: parsed.map((event) => JSON.parse(event.data) as Recorded) }
}

/** Item-level shape: the fields every event and its item/part carry. The response envelope is compared apart. */
function shape(event: Recorded, ignoreItemKeys: string[] = []) {
  const item = event.item ? keysOf(event.item).filter((key) => !ignoreItemKeys.includes(key)) : undefined
  return { type: event.type, keys: keysOf(event), item, part: event.part ? keysOf(event.part) : undefined }
}

const recordedStreams = [
  'response-text-stream.chunks.jsonl',
  'response-reasoning-summary-function-call-stream.chunks.jsonl',
  'response-reasoning-function-call-stream.sse',
]

describe('Responses stream encoder against recorded API streams', () => {
  for (const name of recordedStreams) {
    test(`${name}: same events, order and fields`, async () => {
      const recorded = readStreamFixture(name)
      const { events } = await encode(recordedToIr(recorded), { model: 'gpt-test', input: 'hi', tools: recorded[0]!.response.tools })
      // A reasoning item's signature only arrives when its IR block ends, so the opening item cannot carry it yet.
      const ignore = (event: Recorded) => (event.type === 'response.output_item.added' ? ['encrypted_content'] : [])
      expect(events.map((event) => shape(event, ignore(event)))).toEqual(recorded.map((event) => shape(event, ignore(event))))
      expect(events.map((event) => event.sequence_number)).toEqual(recorded.map((_, index) => index))

      const mine = events.at(-1)!.response
      const theirs = recorded.at(-1)!.response
      for (const key of Object.keys(mine)) expect(Object.keys(theirs)).toContain(key)
      expect(mine.status).toBe(theirs.status)
      expect(mine.usage).toMatchObject(theirs.usage)
      expect(mine.output.map(itemFacts)).toEqual(theirs.output.map(itemFacts))
    })

    test(`${name}: the official SDK's responses.stream() accepts what we send, as it accepts the recording`, async () => {
      const recorded = readStreamFixture(name)
      const { sse } = await encode(recordedToIr(recorded))
      const ours = await sdkReading(sse).responses.stream({ model: 'gpt-test', input: 'hi' }).finalResponse()
      const theirs = await sdkReading(toSse(recorded)).responses.stream({ model: 'gpt-test', input: 'hi' }).finalResponse()
      expect(ours.output_text).toBe(theirs.output_text)
      expect(ours.output.map((item) => item.type)).toEqual(theirs.output.map((item) => item.type))
      expect(ours.usage).toEqual({
        ...theirs.usage!,
        input_tokens_details: { cache_write_tokens: 0, cached_tokens: theirs.usage!.input_tokens_details.cached_tokens },
      })
    })
  }

  test('a failure mid-stream ends with an error event then response.failed, as recorded', async () => {
    const recorded = readStreamFixture('stream-error-insufficient-quota.chunks.jsonl')
    const failure = new GatewayError('insufficient_balance', 'You exceeded your current quota', {
      code: readErrorCode('insufficient_quota'),
    })
    const { events, sse } = await encode([
      { type: 'start', id: 'x', model: 'm', created: 1 },
      { type: 'error', error: failure },
    ])
    expect(events.map((event) => shape(event))).toEqual(recorded.map((event) => shape(event)))
    expect(keysOf(events[2]!.error)).toEqual(keysOf(recorded[2]!.error))
    expect(keysOf(events[3]!.response.error)).toEqual(keysOf(recorded[3]!.response.error))
    expect(events[3]!.response).toMatchObject({
      status: 'failed',
      error: { code: 'insufficient_quota', message: 'You exceeded your current quota' },
    })
    // The SDK surfaces the error event as an APIError carrying our message.
    await expect(sdkReading(sse).responses.stream({ model: 'gpt-test', input: 'hi' }).finalResponse()).rejects.toThrow(
      'You exceeded your current quota',
    )
  })
})

describe('Responses stream encoder details', () => {
  const start: StreamEvent = { type: 'start', id: 'up-1', model: 'real-model', created: 1700000000 }
  const usage = usageFromRecorded({
    input_tokens: 10,
    input_tokens_details: { cached_tokens: 4 },
    output_tokens: 3,
    output_tokens_details: { reasoning_tokens: 0 },
  })

  test('an answer cut by the token limit ends with response.incomplete and says why', async () => {
    const { events } = await encode([
      start,
      { type: 'text-start', index: 0 },
      { type: 'text-delta', index: 0, text: 'Hel' },
      { type: 'text-end', index: 0 },
      { type: 'finish', reason: 'length' },
      { type: 'usage', usage },
    ])
    const last = events.at(-1)!
    expect(last.type).toBe('response.incomplete')
    expect(last.response).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
      usage: { input_tokens: 10, input_tokens_details: { cached_tokens: 4 } },
    })
  })

  test('the gateway model id is reported, never the upstream one, and created_at is the upstream time', async () => {
    const { events } = await encode([start, { type: 'finish', reason: 'stop' }])
    expect(events.map((event) => event.type)).toEqual(['response.created', 'response.in_progress', 'response.completed'])
    expect(events[0]!.response).toMatchObject({ model: 'gpt-test', created_at: 1700000000, status: 'in_progress', output: [] })
  })

  test('a function from a namespace is called back under its namespace', async () => {
    const body = {
      model: 'gpt-test',
      input: 'hi',
      tools: [
        {
          type: 'namespace',
          name: 'crm',
          description: 'CRM',
          tools: [{ type: 'function', name: 'lookup', parameters: { type: 'object' } }],
        },
      ],
    }
    const { events } = await encode(
      [
        start,
        { type: 'tool-call-start', index: 0, id: 'call_1', name: 'crm__lookup' },
        { type: 'tool-call-delta', index: 0, arguments: '{}' },
        { type: 'tool-call-end', index: 0 },
        { type: 'finish', reason: 'tool-calls' },
      ],
      body,
    )
    const done = events.find((event) => event.type === 'response.output_item.done')!
    expect(done.item).toMatchObject({ type: 'function_call', name: 'lookup', namespace: 'crm', call_id: 'call_1', arguments: '{}' })
  })

  test('parallel calls whose fragments interleave (as OpenAI streams them) each keep their own item and arguments', async () => {
    const { sse, events } = await encode([
      start,
      { type: 'text-start', index: 0 },
      { type: 'text-delta', index: 0, text: 'Checking both.' },
      { type: 'text-end', index: 0 },
      { type: 'tool-call-start', index: 1, id: 'call_a', name: 'get_weather' },
      { type: 'tool-call-delta', index: 1, arguments: '{"city":' },
      { type: 'tool-call-start', index: 2, id: 'call_b', name: 'get_weather' },
      { type: 'tool-call-delta', index: 2, arguments: '{"city":"Rome"}' },
      { type: 'tool-call-delta', index: 1, arguments: '"Paris"}' },
      { type: 'tool-call-end', index: 1 },
      { type: 'tool-call-end', index: 2 },
      { type: 'finish', reason: 'tool-calls' },
    ])
    const added = events
      .filter((event) => event.type === 'response.output_item.added')
      .map((event) => [event.output_index, event.item.type])
    expect(added).toEqual([
      [0, 'message'],
      [1, 'function_call'],
      [2, 'function_call'],
    ])
    const final = await sdkReading(sse).responses.stream({ model: 'gpt-test', input: 'hi' }).finalResponse()
    expect(final.output_text).toBe('Checking both.')
    expect(final.output.slice(1).map((item) => item.type === 'function_call' && [item.call_id, item.arguments])).toEqual([
      ['call_a', '{"city":"Paris"}'],
      ['call_b', '{"city":"Rome"}'],
    ])
  })

  test('a stream cut before its blocks closed still closes every item before response.completed', async () => {
    const { events } = await encode([start, { type: 'text-start', index: 0 }, { type: 'text-delta', index: 0, text: 'partial' }])
    expect(events.map((event) => event.type).slice(-4)).toEqual([
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ])
    expect(events.at(-1)!.response.output[0].content[0].text).toBe('partial')
  })
})
