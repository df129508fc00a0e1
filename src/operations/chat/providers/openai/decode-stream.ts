import { GatewayError } from '../../../../core/errors.ts'
import type { StreamEvent } from '../../core/ir.ts'
import { eventJson, type SseEvent } from '../../../../core/sse.ts'
import type { StreamDecoder } from '../../../../core/provider.ts'
import { decodeOpenAiLogprobs } from '../../wire/openai/logprobs.ts'
import { decodeOpenAiUsage } from './decode-usage.ts'
import { unreportedUsage } from '../../../../core/usage.ts'
import { mapOpenAiFinishReason } from './map-finish-reason.ts'
import { decodeOpenAiError } from '../../../../providers/openai/decode-error.ts'
import { finishStream, StreamBlocks } from '../stream-blocks.ts'
import type { StreamDecoderOptions } from '../../../../providers/http-codec.ts'
import { redactKey } from '../../../../providers/scrub-upstream-text.ts'

interface ChunkToolCall {
  index?: number
  id?: string
  function?: { name?: string; arguments?: string }
}

interface Chunk {
  id?: string
  created?: number
  model?: string
  choices?: {
    index?: number
    delta?: { content?: string | null; refusal?: string | null; reasoning_content?: string | null; tool_calls?: ChunkToolCall[] }
    finish_reason?: string | null
    logprobs?: unknown
  }[]
  usage?: Parameters<typeof decodeOpenAiUsage>[0] | null
  error?: unknown
}

/**
 * Chat Completions chunks → IR events. Only choice 0 is followed (the gateway asks for one choice).
 * Block indexes: text, reasoning and every tool call each get the next number as they first appear;
 * an open text or reasoning block is closed when a different block starts.
 */
export function createOpenAiStreamDecoder(options: StreamDecoderOptions = {}): StreamDecoder<StreamEvent> {
  return new OpenAiStreamDecoder(options.apiKey)
}

/**
 * One stream's decoder: one object, not closures over shared state, because a stream keeps its decoder for as long
 * as it is open (minutes, for thousands of streams at once), where closures cost three functions, their scopes and
 * an object to carry them. It is its own block bookkeeping (it extends StreamBlocks) for the same reason.
 */
/** The choice a stream's answer is (index 0): a loop, not `find` with a closure made for every chunk. */
function firstChoice(choices: Chunk['choices']): NonNullable<Chunk['choices']>[number] | undefined {
  if (!choices) return undefined
  for (const choice of choices) if ((choice.index ?? 0) === 0) return choice
  return undefined
}

/** A chunk without tool calls (nearly every one) loops over this instead of a new empty array. */
const noCalls: readonly never[] = []

class OpenAiStreamDecoder extends StreamBlocks implements StreamDecoder<StreamEvent> {
  private started = false
  /** OpenAI tool_calls[].index → IR block index: made at the first tool call, as most answers have none. */
  private toolBlocks: Map<number, number> | undefined
  private finished = false
  private done = false

  constructor(private readonly apiKey: string | undefined) {
    super()
  }

  decode(event: SseEvent): StreamEvent[] {
    if (event.data === '[DONE]') {
      this.done = true
      return []
    }
    let chunk: Chunk
    try {
      // Parsed once: a passthrough stream's drop test may have parsed this event already (isUsageChunk).
      chunk = eventJson(event) as Chunk
    } catch {
      return [{ type: 'error', error: new GatewayError('upstream', 'Upstream sent a malformed stream chunk') }]
    }
    const events: StreamEvent[] = []
    if (chunk.error || event.event === 'error') {
      this.closeAll(events)
      events.push({ type: 'error', error: decodeOpenAiError(500, redactKey(event.data, this.apiKey)) })
      return events
    }
    if (!this.started) {
      this.started = true
      events.push({
        type: 'start',
        id: chunk.id ?? '',
        model: chunk.model ?? '',
        created: chunk.created ?? Math.floor(Date.now() / 1000),
      })
    }
    const choice = firstChoice(chunk.choices)
    const delta = choice?.delta
    // Log probabilities before the text they describe (as Gemini's decoder): an encoder puts them on that text.
    const logprobs = decodeOpenAiLogprobs(choice?.logprobs)
    if (logprobs?.length) events.push({ type: 'logprobs', logprobs })
    if (delta?.reasoning_content)
      events.push({ type: 'reasoning-delta', index: this.open('reasoning', events), text: delta.reasoning_content })
    if (delta?.content) events.push({ type: 'text-delta', index: this.open('text', events), text: delta.content })
    if (delta?.refusal) events.push({ type: 'text-delta', index: this.open('text', events), text: delta.refusal })
    for (const call of delta?.tool_calls ?? noCalls) {
      const key = call.index ?? 0
      const toolBlocks = (this.toolBlocks ??= new Map())
      let index = toolBlocks.get(key)
      if (index === undefined) {
        this.close(events)
        index = this.take()
        toolBlocks.set(key, index)
        events.push({ type: 'tool-call-start', index, id: call.id ?? `call_${index}`, name: call.function?.name ?? '' })
      }
      if (call.function?.arguments) events.push({ type: 'tool-call-delta', index, arguments: call.function.arguments })
    }
    if (choice?.finish_reason) {
      this.closeAll(events)
      this.finished = true
      events.push({ type: 'finish', reason: delta?.refusal ? 'refusal' : mapOpenAiFinishReason(choice.finish_reason) })
    }
    // A report the gateway cannot bill from wipes any earlier one: the meter then estimates (core/usage.ts).
    if (chunk.usage) events.push({ type: 'usage', usage: decodeOpenAiUsage(chunk.usage) ?? unreportedUsage() })
    return events
  }

  finish(): StreamEvent[] {
    return finishStream(this.finished, this.done, (events) => this.closeAll(events))
  }

  private closeAll(events: StreamEvent[]): void {
    this.close(events)
    if (!this.toolBlocks) return
    for (const index of this.toolBlocks.values()) events.push({ type: 'tool-call-end', index })
    this.toolBlocks.clear()
  }
}
