import type { StreamEvent } from '../../src/operations/chat/core/ir.ts'
import type { SseEvent } from '../../src/core/sse.ts'
import type { StreamDecoder } from '../../src/core/provider.ts'
import { readFixture as readAnyFixture, readStreamFixture } from './fixtures.ts'

export function readFixture(name: string): string {
  return readAnyFixture(`anthropic/${name}`)
}

/**
 * A recorded Anthropic stream as SSE events. `.chunks.jsonl` files kept only the data lines; Anthropic's event name
 * is always the payload's `type` (and its SDK drops events without one), so it is put back from there.
 */
export function readFixtureEvents(name: string): SseEvent[] {
  return readStreamFixture(`anthropic/${name}`).map((event) =>
    event.event ? event : { event: JSON.parse(event.data).type, data: event.data },
  )
}

export function decodeAll(decoder: StreamDecoder<StreamEvent>, events: SseEvent[]): StreamEvent[] {
  return [...events.flatMap((event) => decoder.decode(event)), ...decoder.finish()]
}

/** What a client would rebuild from IR events: text, reasoning and tool arguments joined per block. */
export function collect(events: StreamEvent[]) {
  const text: string[] = []
  const reasoning: { text: string; signature?: string }[] = []
  const tools: { id: string; name: string; arguments: string }[] = []
  const blocks = new Map<number, { kind: string; item: any }>()
  const open = new Set<number>()
  for (const event of events) {
    if (event.type === 'text-start') blocks.set(event.index, { kind: 'text', item: text.push('') - 1 })
    else if (event.type === 'reasoning-start')
      blocks.set(event.index, { kind: 'reasoning', item: reasoning[reasoning.push({ text: '' }) - 1] })
    else if (event.type === 'tool-call-start')
      blocks.set(event.index, { kind: 'tool', item: tools[tools.push({ id: event.id, name: event.name, arguments: '' }) - 1] })
    if (event.type.endsWith('-start') && 'index' in event) open.add(event.index)
    if (event.type.endsWith('-end') && 'index' in event) open.delete(event.index)
    if (event.type === 'text-delta') text[blocks.get(event.index)!.item] += event.text
    else if (event.type === 'reasoning-delta') blocks.get(event.index)!.item.text += event.text
    else if (event.type === 'reasoning-signature') blocks.get(event.index)!.item.signature = event.signature
    else if (event.type === 'tool-call-delta') blocks.get(event.index)!.item.arguments += event.arguments
  }
  const usage = events.filter((event) => event.type === 'usage').at(-1)
  const finish = events.filter((event) => event.type === 'finish').at(-1)
  const error = events.find((event) => event.type === 'error')
  return {
    text,
    reasoning,
    tools,
    unclosed: open.size,
    usage: usage?.type === 'usage' ? usage.usage : undefined,
    finish: finish?.type === 'finish' ? finish.reason : undefined,
    error: error?.type === 'error' ? error.error : undefined,
  }
}
