import type { StreamEvent } from '../core/ir.ts'

/**
 * Block bookkeeping for stream decoders whose upstream sends bare text and thought deltas (OpenAI chat, Gemini):
 * consecutive deltas of one kind continue one IR block, a different kind closes it and opens the next, and every
 * block, tool calls included, takes the next index in one sequence.
 */
export class StreamBlocks {
  private current: { kind: 'text' | 'reasoning'; index: number } | undefined
  private next = 0

  /** The index of a block the caller opens and closes itself (a tool call). */
  take(): number {
    return this.next++
  }

  /** The open block of this kind, opening it (and closing another kind) when needed. */
  open(kind: 'text' | 'reasoning', events: StreamEvent[]): number {
    if (this.current?.kind === kind) return this.current.index
    this.close(events)
    this.current = { kind, index: this.take() }
    events.push({ type: kind === 'text' ? 'text-start' : 'reasoning-start', index: this.current.index })
    return this.current.index
  }

  close(events: StreamEvent[]): void {
    if (this.current) events.push({ type: this.current.kind === 'text' ? 'text-end' : 'reasoning-end', index: this.current.index })
    this.current = undefined
  }
}
