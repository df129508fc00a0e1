import { GatewayError } from '../../../core/errors.ts'
import type { StreamEvent } from '../core/ir.ts'

/**
 * Block bookkeeping for stream decoders whose upstream sends bare text and thought deltas (OpenAI chat, Gemini):
 * consecutive deltas of one kind continue one IR block, a different kind closes it and opens the next, and every
 * block, tool calls included, takes the next index in one sequence.
 */
export class StreamBlocks {
  /** The open block's kind and index: two fields rather than an object, which an open stream would keep. */
  private kind: 'text' | 'reasoning' | undefined
  private index = 0
  private next = 0

  /** The index of a block the caller opens and closes itself (a tool call). */
  take(): number {
    return this.next++
  }

  /** The open block of this kind, opening it (and closing another kind) when needed. */
  open(kind: 'text' | 'reasoning', events: StreamEvent[]): number {
    if (this.kind === kind) return this.index
    this.close(events)
    this.kind = kind
    this.index = this.take()
    events.push({ type: kind === 'text' ? 'text-start' : 'reasoning-start', index: this.index })
    return this.index
  }

  close(events: StreamEvent[]): void {
    if (this.kind) events.push({ type: this.kind === 'text' ? 'text-end' : 'reasoning-end', index: this.index })
    this.kind = undefined
  }
}

/** The error for an upstream stream that stopped before its answer was complete. */
export function streamCutShort(): GatewayError {
  return new GatewayError('upstream', 'Upstream stream ended before the answer was complete')
}

/**
 * A stream decoder's `finish` for upstreams that mark their end (Anthropic's `message_stop`, OpenAI's `[DONE]`):
 * once the answer `finished` (a finish reason came) or the end marker `ended` it, open blocks are closed and a
 * missing finish reason becomes a plain stop; a stream that simply stopped is an error.
 */
export function finishStream(finished: boolean, ended: boolean, closeAll: (events: StreamEvent[]) => void): StreamEvent[] {
  if (!finished && !ended) return [{ type: 'error', error: streamCutShort() }]
  const events: StreamEvent[] = []
  closeAll(events)
  if (!finished) events.push({ type: 'finish', reason: 'stop' })
  return events
}
