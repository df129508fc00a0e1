import type { FinishReason, StreamEvent, TokenLogprob, Usage } from '../../core/ir.ts'
import { encodeOpenAiLogprobs } from '../../wire/openai/logprobs.ts'
import { formatSse } from '../../../../core/sse.ts'
import { encodeOpenAiError } from '../../../../protocols/openai-chat/encode-error.ts'
import type { Json } from '../../../../protocols/shared/validate.ts'
import type { ResponsesContext } from './decode-request.ts'
import {
  functionCallItem,
  messageItem,
  newItemId,
  outputText,
  reasoningItem,
  responseObject,
  statusOf,
  summaryText,
} from './encode-items.ts'
import type { ReasoningSeal } from './reasoning-envelope.ts'

/** One output item being streamed: an IR block (text, reasoning or tool call) becomes one item. */
interface OpenItem {
  kind: 'text' | 'reasoning' | 'tool'
  id: string
  outputIndex: number
  text: string
  call?: { id: string; name: string }
  seal: ReasoningSeal
  summaryOpen: boolean
  /** A text item's log probabilities so far, for its output_text.done and the final response. */
  logprobs?: TokenLogprob[]
}

/** A delta event's log probabilities: token, logprob and the alternatives (no bytes, as the API streams them). */
function deltaLogprobs(logprobs: TokenLogprob[]): Json[] {
  return logprobs.map((entry) => ({
    token: entry.token,
    logprob: entry.logprob,
    top_logprobs: (entry.top ?? []).map((top) => ({ token: top.token, logprob: top.logprob })),
  }))
}

/** A finished text item's output_text, with its log probabilities when there are any (as the JSON answer has them). */
function finalText(item: OpenItem): Json {
  const part = outputText(item.text)
  if (item.logprobs) part.logprobs = encodeOpenAiLogprobs(item.logprobs).content
  return part
}

/**
 * IR events → named Responses SSE events (`event: <type>` + `data` whose `type` matches), numbered by
 * `sequence_number` from 0. Every item goes output_item.added → its deltas → output_item.done, and the stream
 * ends with response.completed (or response.incomplete) carrying the whole response and its usage, which is
 * where the Codex CLI reads them. A failure ends with an `error` event and then response.failed.
 */
export async function* encodeResponsesStream(events: AsyncIterable<StreamEvent>, context: ResponsesContext): AsyncGenerator<string> {
  const base = { id: newItemId('resp'), createdAt: Math.floor(Date.now() / 1000) }
  const items = new Map<number, OpenItem>()
  const output: Json[] = []
  let sequence = 0
  let started = false
  let usage: Usage | undefined
  let finish: FinishReason | undefined
  /** Log probabilities come before the text they describe (ir.ts): held for the next text delta. */
  let pendingLogprobs: TokenLogprob[] | undefined

  const emit = (type: string, fields: Json) => formatSse(JSON.stringify({ type, sequence_number: sequence++, ...fields }), type)
  const at = (item: OpenItem) => ({ item_id: item.id, output_index: item.outputIndex })

  function* begin(created?: number): Generator<string> {
    if (started) return
    started = true
    if (created) base.createdAt = created
    const response = responseObject(base, context, { status: 'in_progress', output: [] })
    yield emit('response.created', { response })
    yield emit('response.in_progress', { response })
  }

  function* open(index: number, kind: OpenItem['kind'], call?: OpenItem['call'], redacted?: string): Generator<string> {
    const item: OpenItem = {
      kind,
      id: newItemId(kind === 'text' ? 'msg' : kind === 'tool' ? 'fc' : 'rs'),
      outputIndex: output.length,
      text: '',
      call,
      seal: { redacted },
      summaryOpen: false,
    }
    items.set(index, item)
    output.push({})
    const added =
      kind === 'text'
        ? messageItem(item.id, 'in_progress', [])
        : kind === 'tool'
          ? functionCallItem(item.id, 'in_progress', { ...call!, arguments: '' }, context)
          : reasoningItem(item.id, '', item.seal)
    yield emit('response.output_item.added', { output_index: item.outputIndex, item: added })
    if (kind === 'text') yield emit('response.content_part.added', { ...at(item), content_index: 0, part: outputText('') })
  }

  function* feed(item: OpenItem, delta: string): Generator<string> {
    item.text += delta
    if (item.kind === 'text') {
      const logprobs = pendingLogprobs
      pendingLogprobs = undefined
      if (logprobs) item.logprobs = [...(item.logprobs ?? []), ...logprobs]
      yield emit('response.output_text.delta', { ...at(item), content_index: 0, delta, logprobs: logprobs ? deltaLogprobs(logprobs) : [] })
    } else if (item.kind === 'tool') yield emit('response.function_call_arguments.delta', { ...at(item), delta })
    else {
      if (!item.summaryOpen) {
        item.summaryOpen = true
        yield emit('response.reasoning_summary_part.added', { ...at(item), summary_index: 0, part: summaryText('') })
      }
      yield emit('response.reasoning_summary_text.delta', { ...at(item), summary_index: 0, delta })
    }
  }

  function* close(index: number): Generator<string> {
    const item = items.get(index)
    if (!item) return
    items.delete(index)
    let done: Json
    if (item.kind === 'text') {
      const part = finalText(item)
      yield emit('response.output_text.done', {
        ...at(item),
        content_index: 0,
        text: item.text,
        logprobs: item.logprobs ? deltaLogprobs(item.logprobs) : [],
      })
      yield emit('response.content_part.done', { ...at(item), content_index: 0, part })
      done = { ...messageItem(item.id, 'completed', []), content: [part] }
    } else if (item.kind === 'tool') {
      const args = item.text || '{}'
      yield emit('response.function_call_arguments.done', { ...at(item), arguments: args })
      done = functionCallItem(item.id, 'completed', { ...item.call!, arguments: args }, context)
    } else {
      if (item.summaryOpen) {
        yield emit('response.reasoning_summary_text.done', { ...at(item), summary_index: 0, text: item.text })
        yield emit('response.reasoning_summary_part.done', { ...at(item), summary_index: 0, part: summaryText(item.text) })
      }
      done = reasoningItem(item.id, item.text, item.seal)
    }
    output[item.outputIndex] = done
    yield emit('response.output_item.done', { output_index: item.outputIndex, item: done })
  }

  for await (const event of events) {
    yield* begin(event.type === 'start' ? event.created : undefined)
    switch (event.type) {
      case 'text-start':
        yield* open(event.index, 'text')
        break
      case 'reasoning-start':
        yield* open(event.index, 'reasoning', undefined, event.redacted)
        break
      case 'tool-call-start':
        yield* open(event.index, 'tool', { id: event.id, name: event.name })
        break
      case 'text-delta':
      case 'reasoning-delta': {
        const item = items.get(event.index)
        if (item) yield* feed(item, event.text)
        break
      }
      case 'tool-call-delta': {
        const item = items.get(event.index)
        if (item) yield* feed(item, event.arguments)
        break
      }
      case 'reasoning-signature': {
        const item = items.get(event.index)
        if (item) item.seal.signature = event.signature
        break
      }
      case 'text-end':
      case 'reasoning-end':
      case 'tool-call-end':
        yield* close(event.index)
        break
      case 'usage':
        usage = event.usage
        break
      case 'logprobs':
        pendingLogprobs = pendingLogprobs ? [...pendingLogprobs, ...event.logprobs] : event.logprobs
        break
      case 'finish':
        finish = event.reason
        break
      case 'error': {
        const { error } = encodeOpenAiError(event.error)
        yield emit('error', { error })
        const failed = { code: error.code ?? error.type, message: error.message }
        yield emit('response.failed', {
          response: responseObject(base, context, { status: 'failed', error: failed, output: output.filter((item) => item.type), usage }),
        })
        return
      }
    }
  }
  yield* begin()
  for (const index of [...items.keys()]) yield* close(index)
  const { status, incomplete_details } = statusOf(finish)
  const response = responseObject(base, context, { status, incomplete_details, output, usage })
  yield emit(status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response })
}
