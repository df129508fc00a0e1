import { expect, test } from 'bun:test'
import type { StreamEvent } from '../../core/ir.ts'
import { encodeChatStream } from './encode-stream.ts'

async function* events(list: StreamEvent[]): AsyncGenerator<StreamEvent> {
  yield* list
}

test('a text delta is written byte for byte as the whole chunk object would be, quotes, newlines and odd ids included', async () => {
  const text = 'He said "hi"\nthen \\ left 😀 \u0000'
  const out: string[] = []
  for await (const part of encodeChatStream(
    events([
      { type: 'start', id: 'chatcmpl-"odd"\u2028\u0000text\u0000', model: 'up', created: 1700000000 },
      { type: 'text-start', index: 0 },
      { type: 'text-delta', index: 0, text },
    ]),
    'm"odel',
    false,
  ))
    out.push(part)
  const expected = `data: ${JSON.stringify({ id: 'chatcmpl-"odd"\u2028\u0000text\u0000', object: 'chat.completion.chunk', created: 1700000000, model: 'm"odel', choices: [{ index: 0, delta: { content: text }, logprobs: null, finish_reason: null }] })}\n\n`
  expect(out[1]).toBe(expected)
  expect(JSON.parse(out[1]!.slice(6)).choices[0].delta.content).toBe(text)
})
