import type { StreamEvent, Usage } from '../../core/ir.ts'
import { formatSse } from '../../../../core/sse.ts'
import { encodeOpenAiLogprobs } from '../../wire/openai/logprobs.ts'
import { encodeOpenAiError } from '../../../../protocols/openai-chat/encode-error.ts'
import { encodeOpenAiUsage } from './encode-usage.ts'
import { encodeFinishReason } from './map-finish-reason.ts'

/**
 * IR events → `chat.completion.chunk` SSE, ending in `data: [DONE]`.
 * Every chunk carries the same id; the first carries `role`; tool calls are numbered 0,1,2… among tool calls
 * (not among all blocks), with id and name on their first delta only, as the SDK's `.stream()` helper requires.
 * The usage chunk (`choices: []`) is sent only when the client asked for it with `stream_options.include_usage`.
 */
export async function* encodeChatStream(events: AsyncIterable<StreamEvent>, model: string, includeUsage: boolean): AsyncGenerator<string> {
  let id = ''
  let created = Math.floor(Date.now() / 1000)
  let usage: Usage | undefined
  let finish: string | undefined
  const toolIndexes = new Map<number, number>()
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null, logprobs: unknown = null) =>
    formatSse(
      JSON.stringify({
        id,
        object: 'chat.completion.chunk',
        created,
        model,
        choices: [{ index: 0, delta, logprobs, finish_reason: finishReason }],
      }),
    )
  // Nearly every chunk of an answer is one text delta: the same bytes `chunk` would write, with only the text
  // serialized per chunk (JSON.stringify of the whole chunk was ~5% of the translated route's main thread).
  let textChunk = textChunkOf(id, created, model)

  for await (const event of events) {
    switch (event.type) {
      case 'start':
        id = event.id.startsWith('chatcmpl-') ? event.id : `chatcmpl-${event.id}`
        created = event.created
        textChunk = textChunkOf(id, created, model)
        yield chunk({ role: 'assistant', content: '' })
        break
      case 'text-delta':
        yield textChunk.before + JSON.stringify(event.text) + textChunk.after
        break
      case 'reasoning-delta':
        yield chunk({ reasoning_content: event.text })
        break
      case 'tool-call-start': {
        const toolIndex = toolIndexes.size
        toolIndexes.set(event.index, toolIndex)
        yield chunk({ tool_calls: [{ index: toolIndex, id: event.id, type: 'function', function: { name: event.name, arguments: '' } }] })
        break
      }
      case 'tool-call-delta':
        yield chunk({ tool_calls: [{ index: toolIndexes.get(event.index) ?? 0, function: { arguments: event.arguments } }] })
        break
      case 'finish':
        finish = encodeFinishReason(event.reason)
        break
      case 'usage':
        usage = event.usage
        break
      case 'logprobs': // in a chunk of their own: the SDK's accumulator appends them to the choice's logprobs
        yield chunk({}, null, encodeOpenAiLogprobs(event.logprobs))
        break
      case 'error':
        yield formatSse(JSON.stringify(encodeOpenAiError(event.error)))
        return
    }
  }
  yield chunk({}, finish ?? 'stop')
  if (includeUsage && usage) {
    yield formatSse(JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: encodeOpenAiUsage(usage) }))
  }
  yield 'data: [DONE]\n\n'
}

/** A text delta's chunk as two fixed halves around the text: what `chunk({ content })` writes, made once per stream. */
function textChunkOf(id: string, created: number, model: string): { before: string; after: string } {
  const marker = JSON.stringify('\u0000text\u0000')
  const whole = formatSse(
    JSON.stringify({
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      choices: [{ index: 0, delta: { content: '\u0000text\u0000' }, logprobs: null, finish_reason: null }],
    }),
  )
  // The text comes after the id (the upstream's, which could hold the marker too) and the model: its last place.
  const at = whole.lastIndexOf(marker)
  return { before: whole.slice(0, at), after: whole.slice(at + marker.length) }
}
