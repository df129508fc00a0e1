import { expect, test } from 'bun:test'
import { readStreamFixture } from '../../../../../test/support/fixtures.ts'
import { isUsageChunk } from './passthrough.ts'
import { eventJson } from '../../../../core/sse.ts'

test('of a recorded OpenAI stream with include_usage, only the final usage chunk is the one to hide', () => {
  const events = readStreamFixture('openai-chat/chat-text-stream.sse')
  // Every other chunk carries `"usage":null`: none of them may be dropped.
  expect(events.filter((event) => event.data.includes('"usage":null')).length).toBeGreaterThan(3)
  const hidden = events.filter(isUsageChunk)
  expect(hidden).toHaveLength(1)
  expect(JSON.parse(hidden[0]!.data)).toMatchObject({ choices: [], usage: { prompt_tokens: 78, completion_tokens: 9 } })
})

test('a usage object is recognised whatever the whitespace a server puts around the colon', () => {
  expect(isUsageChunk({ data: '{"choices": [], "usage": {"prompt_tokens": 1, "completion_tokens": 2}}' })).toBe(true)
  expect(isUsageChunk({ data: '{"choices" : [] , "usage" : {"prompt_tokens":1}}' })).toBe(true)
  expect(isUsageChunk({ data: '{"choices": [], "usage": null}' })).toBe(false)
  // A usage object beside content is the client's own business (it asked for include_usage), never hidden.
  expect(isUsageChunk({ data: '{"choices":[{"index":0,"delta":{"content":"hi"}}],"usage":{"prompt_tokens":1}}' })).toBe(false)
  // The word inside the answer's text is escaped JSON, not a field.
  expect(isUsageChunk({ data: '{"choices":[{"index":0,"delta":{"content":"\\"usage\\": {"}}],"usage":null}' })).toBe(false)
})

test('the usage test agrees with a text search before the parse, and leaves its parse to the decoder', () => {
  // The test as it was: the text searched first, the parse only for a chunk with a usage object written in it.
  const before = (data: string) => {
    if (!/"usage" *: *\{/.test(data)) return false
    try {
      const chunk = JSON.parse(data) as { choices?: unknown[]; usage?: unknown }
      return Array.isArray(chunk.choices) && chunk.choices.length === 0 && chunk.usage != null
    } catch {
      return false
    }
  }
  const datas = [
    '{"choices":[],"usage":{"prompt_tokens":1}}',
    '{"choices":[],"usage":null}',
    '{"choices":[],"usage":5}',
    '{"choices":[],"usage":5,"x":{"usage":{}}}',
    '{"choices":[],"usage":\t{"prompt_tokens":1}}',
    '{"choices":[{}],"usage":{}}',
    '{"usage":{}}',
    '[DONE]',
    'null',
    '5',
    'not json {"usage":{}}',
    ' {"choices": [], "usage": {}}',
  ]
  for (const data of datas) expect({ data, dropped: isUsageChunk({ data }) }).toEqual({ data, dropped: before(data) })
  const event = { data: datas[0]! }
  isUsageChunk(event)
  expect(eventJson(event)).toBe(eventJson(event))
  expect(eventJson(event)).toEqual({ choices: [], usage: { prompt_tokens: 1 } })
})
