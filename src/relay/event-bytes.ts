import { isUtf8 } from 'node:buffer'
import { GatewayError } from '../core/errors.ts'
import { formatSse, type SseEvent } from '../core/sse.ts'

// The bytes of a passthrough stream's reads, seen as SSE blocks: where a read's complete events end, and a read with
// some events cut out of it in place (passthrough-tap.ts sends upstream bytes as they came, less what it must not).

/**
 * Where the last complete event of `chunk` ends (just after the blank line that ends it), 0 when the chunk completes
 * none. A blank line is two line ends in a row, CRLF counting as one, as the SSE parser reads them; `before` is the
 * held chunk just before this one, for a blank line that straddles the two. Vendors end each write with an event's
 * blank line, so the usual chunk is answered by its last two bytes.
 */
export function eventsEnd(chunk: Uint8Array, before?: Uint8Array): number {
  const length = chunk.length
  // The usual chunk ends with its event's blank line, LF LF: answered without the scan below (and its closure).
  if (length >= 2 && chunk[length - 1] === 10 && chunk[length - 2] === 10) return length
  const at = (index: number) => (index >= 0 ? chunk[index] : before?.[before.length + index])
  for (let index = chunk.length - 1; index >= 0; index--) {
    const char = chunk[index]
    if (char !== 10 && char !== 13) continue
    const start = char === 10 && at(index - 1) === 13 ? index - 1 : index
    const previous = at(start - 1)
    if (previous === 10 || previous === 13) return index + 1
    index = start
  }
  return 0
}

/**
 * The bytes of `events[0, end)` but those at the `dropped` indexes (ascending), cut out of `raw` in place (the kept
 * blocks moved down over the dropped ones: one chunk to write): only when that is byte for byte what re-framing them
 * would send. So every block of `raw` up to the end of event `end - 1` must be one event exactly as formatSse writes
 * it (`data: X` after an optional `event: E` line, LF line ends and nothing else), block `i` being event `i`, and
 * `raw` valid UTF-8 (the text the parser decoded is then its bytes); else undefined, `raw` untouched, and the caller
 * re-frames. Vendors write their events that way: the usual read is cut, not made anew. Moving in place is safe: `raw`
 * is a read's bytes (or their copy joined with held ones), not yet handed to anyone.
 */
export function keptBytes(raw: Uint8Array, events: SseEvent[], end: number, dropped: number[] | undefined): Uint8Array | undefined {
  if (raw.indexOf(13) !== -1 || !isUtf8(raw)) return undefined
  // First the blocks are checked, and only then moved: a read that is not all formatted events is left as it came.
  const ends = blockEnds(raw, events, end)
  if (ends === undefined) return undefined
  let written = 0
  let start = 0
  let next = 0
  for (let index = 0; index < end; index++) {
    const blockEnd = ends[index]!
    if (dropped !== undefined && dropped[next] === index) next++
    else {
      if (start !== written) raw.copyWithin(written, start, blockEnd)
      written += blockEnd - start
    }
    start = blockEnd
  }
  return written === raw.length ? raw : raw.subarray(0, written)
}

/**
 * Where each of the first `end` events' blocks ends in `raw`, when block `i` is event `i` as formatSse writes it and
 * (all events sent) nothing else follows them in the read; else undefined.
 */
function blockEnds(raw: Uint8Array, events: SseEvent[], end: number): number[] | undefined {
  const ends: number[] = []
  let start = 0
  for (let index = 0; index < end; index++) {
    start = formattedEventEnd(raw, start, events[index]!.event !== undefined)
    if (start === -1) return undefined
    ends.push(start)
  }
  return end === events.length && start !== raw.length ? undefined : ends
}

/**
 * Where the block at `start` ends (after its blank line) when it is one event as formatSse writes it: `data: X\n\n`,
 * or `event: E\ndata: X\n\n` when `named`; -1 when it is anything else.
 */
function formattedEventEnd(raw: Uint8Array, start: number, named: boolean): number {
  let data = start
  if (named) {
    if (!startsWith(raw, start, eventPrefix)) return -1
    data = raw.indexOf(10, start + eventPrefix.length) + 1
    if (data === 0) return -1
  }
  if (!startsWith(raw, data, dataPrefix)) return -1
  const lineEnd = raw.indexOf(10, data + dataPrefix.length)
  return lineEnd !== -1 && raw[lineEnd + 1] === 10 ? lineEnd + 2 : -1
}

const eventPrefix = new TextEncoder().encode('event: ')
const dataPrefix = new TextEncoder().encode('data: ')

function startsWith(bytes: Uint8Array, at: number, prefix: Uint8Array): boolean {
  if (at + prefix.length > bytes.length) return false
  for (let index = 0; index < prefix.length; index++) if (bytes[at + index] !== prefix[index]) return false
  return true
}

/**
 * A stream's bytes handed on an event at a time: the bytes of the events a chunk completes (those held before it
 * included), the bytes of an event not yet complete held until its end comes. So no byte of an event is sent before
 * the whole event is known: an upstream error event, which may quote a credential, can be replaced before any of it
 * leaves (passthrough-tap.ts).
 */
export class EventBytes {
  /** The bytes of an event not yet complete; made when first needed. */
  private tail: Uint8Array[] | undefined
  private tailBytes = 0

  constructor(private readonly maxEventChars: number) {}

  complete(chunk: Uint8Array): Uint8Array | undefined {
    const end = eventsEnd(chunk, this.tail?.at(-1))
    if (end === 0) {
      ;(this.tail ??= []).push(chunk)
      this.tailBytes += chunk.byteLength
      // Lines the parser ignores (comments, unknown fields) are not counted by it: an event of them is capped here.
      if (this.tailBytes > 8 * this.maxEventChars)
        throw new GatewayError('upstream', `Upstream sent a stream event longer than ${this.maxEventChars} characters`, {
          code: 'upstream_malformed',
        })
      return undefined
    }
    const complete = end === chunk.byteLength ? chunk : chunk.subarray(0, end)
    const bytes = this.tail === undefined ? complete : Buffer.concat([...this.tail, complete])
    this.tail = end === chunk.byteLength ? undefined : [chunk.subarray(end)]
    this.tailBytes = chunk.byteLength - end
    return bytes
  }

  /** What is held when the body ends (the last event may end with the body rather than a blank line). */
  rest(): Uint8Array | undefined {
    const bytes = this.tail === undefined ? undefined : Buffer.concat(this.tail)
    this.tail = undefined
    this.tailBytes = 0
    return bytes
  }
}

const encoder = new TextEncoder()

/** The events before `end` but those at the `dropped` indexes, written anew: one encode per read rather than per event. */
export function reframed(events: SseEvent[], end: number, dropped: number[] | undefined): Uint8Array | undefined {
  let kept = ''
  let next = 0
  for (let index = 0; index < end; index++) {
    if (dropped !== undefined && dropped[next] === index) next++
    else kept += formatSse(events[index]!.data, events[index]!.event)
  }
  return kept ? encoder.encode(kept) : undefined
}
