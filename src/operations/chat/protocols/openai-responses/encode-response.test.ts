import { describe, expect, test } from 'bun:test'
import type { ChatResponse, ContentPart } from '../../core/ir.ts'
import { itemFacts, keysOf, type Recorded, readJsonFixture, usageFromRecorded } from '../../../../../test/support/responses-fixtures.ts'
import { decodeResponsesRequest } from './decode-request.ts'
import { encodeResponsesResponse } from './encode-response.ts'

/** The IR answer an upstream would have given for a recorded Response: same parts, same usage. */
function recordedToIr(recorded: Recorded): ChatResponse {
  const content: ContentPart[] = recorded.output.map((item: Recorded): ContentPart => {
    if (item.type === 'message') return { type: 'text', text: item.content[0].text }
    if (item.type === 'reasoning') return { type: 'reasoning', text: item.summary[0]?.text ?? '', signature: item.encrypted_content }
    return { type: 'tool-call', id: item.call_id, name: item.name, arguments: item.arguments }
  })
  const calls = content.some((part) => part.type === 'tool-call')
  return {
    id: recorded.id,
    model: recorded.model,
    created: recorded.created_at,
    content,
    finishReason: calls ? 'tool-calls' : 'stop',
    usage: usageFromRecorded(recorded.usage),
  }
}

function encode(response: ChatResponse, body: Recorded = { model: 'gpt-test', input: 'hi' }) {
  return encodeResponsesResponse(response, decodeResponsesRequest(body).context) as Recorded
}

describe('Response objects against recorded API responses', () => {
  for (const name of ['response-function-call.json', 'response-text-with-reasoning.json', 'response-cached-tokens.json']) {
    test(`${name}: same items with the same fields, same usage, only fields the API also sends`, () => {
      const recorded = readJsonFixture(name)
      const mine = encode(recordedToIr(recorded), { model: 'gpt-test', input: 'hi', tools: recorded.tools })
      for (const key of Object.keys(mine)) expect(Object.keys(recorded)).toContain(key)
      expect(mine).toMatchObject({
        object: 'response',
        status: 'completed',
        model: 'gpt-test',
        created_at: recorded.created_at,
        error: null,
        incomplete_details: null,
      })
      expect(mine.id).toMatch(/^resp_/)
      // Newer captures also carry phase/logprobs details; every field we send must be one the API sends.
      expect(mine.output.map((item: Recorded) => keysOf(item).filter((key) => key !== 'encrypted_content'))).toEqual(
        recorded.output.map((item: Recorded) => keysOf(item).filter((key) => key !== 'encrypted_content' && key !== 'phase')),
      )
      expect(mine.output.map(itemFacts)).toEqual(recorded.output.map(itemFacts))
      expect(mine.usage).toEqual({
        ...recorded.usage,
        input_tokens_details: { cache_write_tokens: 0, ...recorded.usage.input_tokens_details },
      })
      expect(mine.tools).toEqual(recorded.tools)
    })
  }

  test('cached tokens reach the client as input_tokens_details.cached_tokens', () => {
    const mine = encode(recordedToIr(readJsonFixture('response-cached-tokens.json')))
    expect(mine.usage).toEqual({
      input_tokens: 4020,
      input_tokens_details: { cache_write_tokens: 0, cached_tokens: 4012 },
      output_tokens: 5,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 4025,
    })
  })
})

describe('Response object details', () => {
  const answer: ChatResponse = {
    id: 'up',
    model: 'real-model',
    created: 1700000000,
    content: [
      { type: 'text', text: 'Hel' },
      { type: 'text', text: 'lo' },
    ],
    finishReason: 'length',
  }

  test('an answer cut by the token limit is incomplete and says why; adjacent text is one message', () => {
    const mine = encode(answer)
    expect(mine).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, usage: null })
    expect(mine.output).toHaveLength(1)
    expect(mine.output[0].content).toEqual([{ type: 'output_text', annotations: [], logprobs: [], text: 'Hello' }])
  })

  test('store: true is accepted, but the answer says honestly that nothing was stored', () => {
    expect(encode({ ...answer, finishReason: 'stop' }, { model: 'gpt-test', input: 'hi', store: true }).store).toBe(false)
  })

  test('a reasoning signature travels in encrypted_content and is read back from there', () => {
    const mine = encode({ ...answer, content: [{ type: 'reasoning', text: 'thinking', signature: 'sig-123' }], finishReason: 'stop' })
    const item = mine.output[0]
    expect(item).toMatchObject({ type: 'reasoning', summary: [{ type: 'summary_text', text: 'thinking' }] })
    const { request } = decodeResponsesRequest({
      model: 'm',
      input: [{ role: 'user', content: 'q' }, item, { role: 'user', content: 'next' }],
    })
    expect(request.messages[1]).toEqual({ role: 'assistant', content: [{ type: 'reasoning', text: 'thinking', signature: 'sig-123' }] })
  })

  test("another vendor's encrypted reasoning is not passed on as a signature", () => {
    const { request } = decodeResponsesRequest({
      model: 'm',
      input: [
        { type: 'reasoning', summary: [], encrypted_content: 'gAAAAABoyXus' },
        { role: 'user', content: 'q' },
      ],
    })
    expect(request.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'q' }] }])
  })
})
