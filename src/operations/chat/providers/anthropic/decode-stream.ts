import { GatewayError } from '../../../../core/errors.ts'
import type { StreamEvent } from '../../core/ir.ts'
import type { SseEvent } from '../../../../core/sse.ts'
import type { StreamDecoder } from '../../../../core/provider.ts'
import { decodeAnthropicStreamError } from '../../../../providers/anthropic/decode-error.ts'
import type { StreamDecoderOptions } from '../../../../providers/http-codec.ts'
import { redactKey } from '../../../../providers/scrub-upstream-text.ts'
import type { AnthropicUsage } from './decode-usage.ts'
import { decodeAnthropicUsage } from './decode-usage.ts'
import { isJsonAnswer } from './json-answer.ts'
import { mapAnthropicStopReason } from './map-stop-reason.ts'
import { finishStream } from '../stream-blocks.ts'
import { unreportedUsage } from '../../../../core/usage.ts'

type BlockKind = 'text' | 'reasoning' | 'tool' | 'ignored'

interface Payload {
  type?: string
  index?: number
  message?: { id?: string; model?: string; usage?: AnthropicUsage }
  content_block?: { type?: string; text?: string; thinking?: string; data?: string; id?: string; name?: string; input?: unknown }
  delta?: { type?: string; text?: string; partial_json?: string; thinking?: string; signature?: string; stop_reason?: string | null }
  usage?: AnthropicUsage
}

const endType = { text: 'text-end', reasoning: 'reasoning-end', tool: 'tool-call-end' } as const

/**
 * Messages API named events → IR events. Block indexes are Anthropic's own. Usage is cumulative in the IR: the
 * input counts of `message_start` and the output count of `message_delta` are merged into one running report, each
 * field replaced when a later event carries it. A block the upstream never closed (a tool input cut by
 * `max_tokens`) is closed at `message_delta`, so every IR block ends.
 */
export function createAnthropicStreamDecoder(options: StreamDecoderOptions = {}): StreamDecoder<StreamEvent> {
  const blocks = new Map<number, BlockKind>()
  const usage: AnthropicUsage = {}
  let unusable = false
  let started = false
  let finished = false
  let stopped = false
  let jsonAnswer = false
  let calledTools = false

  function closeAll(events: StreamEvent[]) {
    for (const [index, kind] of blocks) if (kind !== 'ignored') events.push({ type: endType[kind], index })
    blocks.clear()
  }

  function mergeUsage(report: AnthropicUsage | undefined, events: StreamEvent[]) {
    if (!report || typeof report !== 'object' || unusable) return
    for (const [field, value] of Object.entries(report))
      if (value !== null && value !== undefined) usage[field as keyof AnthropicUsage] = value
    const decoded = decodeAnthropicUsage(usage)
    // One count the gateway cannot bill from spoils the whole stream's report (its parts come in separate events):
    // the zeros wipe what was passed on before, later events are ignored, and the meter estimates (core/usage.ts).
    if (!decoded) unusable = true
    events.push({ type: 'usage', usage: decoded ?? unreportedUsage() })
  }

  function startBlock(index: number, block: NonNullable<Payload['content_block']>, events: StreamEvent[]) {
    if (block.type === 'text') {
      blocks.set(index, 'text')
      events.push({ type: 'text-start', index })
      if (block.text) events.push({ type: 'text-delta', index, text: block.text })
    } else if (block.type === 'thinking' || block.type === 'redacted_thinking') {
      blocks.set(index, 'reasoning')
      events.push(
        block.type === 'thinking' ? { type: 'reasoning-start', index } : { type: 'reasoning-start', index, redacted: block.data ?? '' },
      )
      if (block.thinking) events.push({ type: 'reasoning-delta', index, text: block.thinking })
    } else if (block.type === 'tool_use' && isJsonAnswer(block.name)) {
      // JSON mode's forced call (json-answer.ts): its input is the answer's text.
      blocks.set(index, 'text')
      jsonAnswer = true
      events.push({ type: 'text-start', index })
      if (block.input && typeof block.input === 'object' && Object.keys(block.input).length)
        events.push({ type: 'text-delta', index, text: JSON.stringify(block.input) })
    } else if (block.type === 'tool_use') {
      calledTools = true
      blocks.set(index, 'tool')
      events.push({ type: 'tool-call-start', index, id: block.id ?? `toolu_${index}`, name: block.name ?? '' })
      // Some Anthropic-compatible servers send the whole input here instead of as deltas.
      const input = block.input && typeof block.input === 'object' && Object.keys(block.input).length ? JSON.stringify(block.input) : ''
      if (input) events.push({ type: 'tool-call-delta', index, arguments: input })
    } else blocks.set(index, 'ignored')
  }

  function decodeDelta(index: number, delta: NonNullable<Payload['delta']>, events: StreamEvent[]) {
    const kind = blocks.get(index)
    if (kind === 'text' && delta.type === 'text_delta' && delta.text) events.push({ type: 'text-delta', index, text: delta.text })
    else if (kind === 'text' && delta.type === 'input_json_delta' && delta.partial_json)
      events.push({ type: 'text-delta', index, text: delta.partial_json })
    else if (kind === 'tool' && delta.type === 'input_json_delta' && delta.partial_json)
      events.push({ type: 'tool-call-delta', index, arguments: delta.partial_json })
    else if (kind === 'reasoning' && delta.type === 'thinking_delta' && delta.thinking)
      events.push({ type: 'reasoning-delta', index, text: delta.thinking })
    else if (kind === 'reasoning' && delta.type === 'signature_delta' && delta.signature)
      events.push({ type: 'reasoning-signature', index, signature: delta.signature })
  }

  return {
    decode(event: SseEvent): StreamEvent[] {
      let payload: Payload
      try {
        payload = JSON.parse(event.data) as Payload
      } catch {
        return [{ type: 'error', error: new GatewayError('upstream', 'Upstream sent a malformed stream event') }]
      }
      const events: StreamEvent[] = []
      const type = payload.type ?? event.event
      const index = payload.index ?? 0
      switch (type) {
        case 'message_start':
          if (!started)
            events.push({
              type: 'start',
              id: payload.message?.id ?? '',
              model: payload.message?.model ?? '',
              created: Math.floor(Date.now() / 1000),
            })
          started = true
          mergeUsage(payload.message?.usage, events)
          break
        case 'content_block_start':
          if (payload.content_block) startBlock(index, payload.content_block, events)
          break
        case 'content_block_delta':
          if (payload.delta) decodeDelta(index, payload.delta, events)
          break
        case 'content_block_stop': {
          const kind = blocks.get(index)
          if (kind && kind !== 'ignored') events.push({ type: endType[kind], index })
          blocks.delete(index)
          break
        }
        case 'message_delta':
          closeAll(events)
          finished = true
          events.push({
            type: 'finish',
            reason:
              jsonAnswer && !calledTools && payload.delta?.stop_reason === 'tool_use'
                ? 'stop'
                : mapAnthropicStopReason(payload.delta?.stop_reason),
          })
          mergeUsage(payload.usage, events)
          break
        case 'message_stop':
          closeAll(events)
          stopped = true
          break
        case 'error':
          closeAll(events)
          events.push({ type: 'error', error: decodeAnthropicStreamError(redactKey(event.data, options.apiKey)) })
          break
      }
      return events
    },
    finish(): StreamEvent[] {
      return finishStream(finished, stopped, closeAll)
    },
  }
}
