import type { StreamEvent } from '../../core/ir.ts'

type BlockEvent = Extract<StreamEvent, { index: number }>

function isBlockEvent(event: StreamEvent): event is BlockEvent {
  return 'index' in event
}

function isEnd(event: BlockEvent): boolean {
  return event.type === 'text-end' || event.type === 'reasoning-end' || event.type === 'tool-call-end'
}

function isStart(event: BlockEvent): boolean {
  return event.type === 'text-start' || event.type === 'reasoning-start' || event.type === 'tool-call-start'
}

/**
 * Anthropic streams one content block at a time, but the IR lets tool calls interleave (OpenAI streams parallel
 * calls by index, and an OpenAI text may start while a call is still open). The block being streamed goes
 * through live; the others are held back, then replayed in the order they started once it ends. Events that
 * belong to no block (usage, finish, error) pass at once.
 */
export async function* orderBlocks(events: AsyncIterable<StreamEvent>): AsyncGenerator<StreamEvent> {
  let current: number | undefined
  const waiting: { index: number; events: BlockEvent[]; ended: boolean }[] = []

  function* release(): Generator<StreamEvent> {
    while (current === undefined && waiting.length > 0) {
      const next = waiting.shift()!
      yield* next.events
      if (!next.ended) current = next.index
    }
  }

  for await (const event of events) {
    if (!isBlockEvent(event)) {
      yield event
      continue
    }
    if (current === undefined && isStart(event)) {
      current = event.index
      yield event
    } else if (event.index === current) {
      yield event
      if (isEnd(event)) {
        current = undefined
        yield* release()
      }
    } else if (isStart(event)) waiting.push({ index: event.index, events: [event], ended: false })
    else {
      const held = waiting.find((block) => block.index === event.index)
      if (!held) continue // an event for a block never started: nothing sensible to attach it to
      held.events.push(event)
      held.ended ||= isEnd(event)
    }
  }
  // A block left open (a stream cut short) is closed by the encoder; whatever waits behind it still goes out.
  for (const held of waiting) yield* held.events
}
