import type { StreamEvent, Usage } from '../../core/ir.ts'
import { randomBase62 } from '../../../../core/ids.ts'
import { formatSse } from '../../../../core/sse.ts'
import { formatErrorEvent } from '../../../../protocols/anthropic/encode-error.ts'
import { messageId } from './encode-response.ts'
import { encodeAnthropicUsage } from './encode-usage.ts'
import { encodeStopReason } from './map-stop-reason.ts'
import { orderBlocks } from './order-blocks.ts'

type Kind = 'text' | 'thinking' | 'redacted' | 'tool'

function send(type: string, data: Record<string, unknown> = {}): string {
  return formatSse(JSON.stringify({ type, ...data }), type)
}

function blockFor(event: Extract<StreamEvent, { type: 'text-start' | 'reasoning-start' | 'tool-call-start' }>): {
  kind: Kind
  block: Record<string, unknown>
} {
  if (event.type === 'text-start') return { kind: 'text', block: { type: 'text', text: '' } }
  if (event.type === 'tool-call-start')
    return { kind: 'tool', block: { type: 'tool_use', id: event.id || `toolu_${randomBase62(24)}`, name: event.name, input: {} } }
  if (event.redacted !== undefined) return { kind: 'redacted', block: { type: 'redacted_thinking', data: event.redacted } }
  return { kind: 'thinking', block: { type: 'thinking', thinking: '', signature: '' } }
}

/**
 * IR events → Anthropic's named SSE events in protocol order: message_start (with the input usage), ping, then
 * each content block as start / deltas / stop with indexes 0,1,2…, then message_delta with the stop reason and the
 * cumulative usage, then message_stop. message_start waits for a usage report that comes before the first block
 * (Anthropic's message_start, Gemini's first chunk), so its input count is exact; an upstream that reports usage
 * only at the end (OpenAI) gets a rough prompt estimate there, and message_delta carries the exact counts, which
 * the SDK's stream helper keeps (docs/conformance.md).
 * A failure ends the stream with `event: error`.
 */
export async function* encodeAnthropicStream(
  events: AsyncIterable<StreamEvent>,
  model: string,
  estimateInput: () => number,
  requestId?: string,
): AsyncGenerator<string> {
  let header: { id: string } | undefined
  let started = false
  let usage: Usage | undefined
  let finish: Parameters<typeof encodeStopReason>[0]
  let open: { index: number; wire: number; kind: Kind } | undefined
  let nextWire = 0

  const reportUsage = () =>
    usage
      ? encodeAnthropicUsage(usage)
      : { input_tokens: estimateInput(), cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 0 }
  function* begin(): Generator<string> {
    started = true
    const message = {
      id: messageId(header?.id || randomBase62(24)),
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: reportUsage(),
    }
    yield send('message_start', { message })
    yield send('ping')
  }
  function* close(): Generator<string> {
    if (open) yield send('content_block_stop', { index: open.wire })
    open = undefined
  }

  for await (const event of orderBlocks(events)) {
    switch (event.type) {
      case 'start':
        header = event
        continue
      case 'usage':
        usage = event.usage
        // Anthropic's message_start carries the input usage, which an Anthropic upstream reports right after its start.
        if (!started && header) yield* begin()
        continue
      case 'finish':
        finish = event.reason
        continue
      case 'logprobs': // Anthropic's protocol has no log probabilities; the request could not have asked for them
        continue
      case 'error':
        yield formatErrorEvent(event.error, requestId)
        return
    }
    if (!started) yield* begin()
    if (event.type === 'text-start' || event.type === 'reasoning-start' || event.type === 'tool-call-start') {
      yield* close()
      const { kind, block } = blockFor(event)
      open = { index: event.index, wire: nextWire++, kind }
      yield send('content_block_start', { index: open.wire, content_block: block })
      continue
    }
    if (!open || event.index !== open.index) continue
    const index = open.wire
    if (event.type === 'text-delta') yield send('content_block_delta', { index, delta: { type: 'text_delta', text: event.text } })
    else if (event.type === 'reasoning-delta' && open.kind === 'thinking')
      yield send('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: event.text } })
    else if (event.type === 'reasoning-signature' && open.kind === 'thinking')
      yield send('content_block_delta', { index, delta: { type: 'signature_delta', signature: event.signature } })
    else if (event.type === 'tool-call-delta')
      yield send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: event.arguments } })
    else if (event.type === 'text-end' || event.type === 'reasoning-end' || event.type === 'tool-call-end') yield* close()
  }
  if (!started) yield* begin()
  yield* close()
  yield send('message_delta', { delta: { stop_reason: encodeStopReason(finish), stop_sequence: null }, usage: reportUsage() })
  yield send('message_stop')
}
