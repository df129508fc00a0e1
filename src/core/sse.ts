/**
 * Server-sent events, parsed and written in one place for every protocol.
 * The parser is incremental: it accepts arbitrary byte chunks (a chunk may end mid-line or mid-character)
 * and handles LF, CRLF and CR line endings, comments and multi-line `data:` fields as the WHATWG spec says.
 */
import { GatewayError } from './errors.ts'

export interface SseEvent {
  event?: string
  data: string
}

export class SseParser {
  /**
   * The unfinished line's pieces, joined only once its end comes: each chunk is scanned once (linear time). Made
   * when first needed, as are `dataLines`: a stream whose every chunk is one whole event needs neither, and an open
   * stream keeps less (bench/idle-census.ts).
   */
  private head: string[] | undefined
  private headLength = 0
  /** The last chunk ended with a CR: a LF starting the next one is the rest of that CRLF. */
  private afterCr = false
  private eventName: string | undefined
  private dataLines: string[] | undefined
  private dataLength = 0
  /**
   * This stream's own streaming decoder, made only when a chunk ends inside a character (or the stream begins with a
   * byte-order mark): the usual chunk ends with an event's blank line, and the shared decoder reads it as this one
   * would. An open stream keeps no TextDecoder, and its start makes none (bench/idle-census.ts).
   */
  private decoder: TextDecoder | undefined
  /** Bytes have been decoded: a byte-order mark from here on is text, not the stream's mark. */
  private decoding = false

  /**
   * `maxEventChars`: the longest line or event (`data:` lines together) accepted; a longer one throws a 502
   * `upstream_malformed` rather than growing without end (limits.upstream_event_bytes, counted in characters).
   */
  constructor(readonly maxEventChars = Number.POSITIVE_INFINITY) {}

  /** Feed bytes or text; returns the events completed by this chunk. */
  push(chunk: Uint8Array | string): SseEvent[] {
    let text = typeof chunk === 'string' ? chunk : this.decode(chunk)
    // The usual chunk: one whole `data: …` event and nothing held from before (each vendor write is one event).
    if (this.dataLines === undefined && this.head === undefined && !this.afterCr && this.eventName === undefined) {
      const single = singleEvent(text)
      if (single !== undefined) {
        if (single.data.length > this.maxEventChars) throw tooLong(this.maxEventChars)
        return [single]
      }
    }
    const events: SseEvent[] = []
    if (this.afterCr) {
      this.afterCr = false
      if (text.charCodeAt(0) === 10) text = text.slice(1)
    }
    let start = 0
    if (text.indexOf('\r') === -1) {
      // LF only, as every vendor sends: indexOf finds the line ends natively, several times faster than a loop
      // over the characters (~6 µs for a short answer's stream before, bench/, 2026-11-23).
      for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
        this.takeLine(this.head === undefined ? text.slice(start, end) : this.joinHead(text.slice(start, end)), events)
        start = end + 1
      }
    } else {
      for (let i = 0; i < text.length; i++) {
        const char = text.charCodeAt(i)
        if (char !== 10 && char !== 13) continue
        this.takeLine(this.head === undefined ? text.slice(start, i) : this.joinHead(text.slice(start, i)), events)
        if (char === 13) {
          if (i === text.length - 1)
            this.afterCr = true // its LF, if any, comes with the next chunk
          else if (text.charCodeAt(i + 1) === 10) i++
        }
        start = i + 1
      }
    }
    if (start < text.length) {
      this.headLength += text.length - start
      if (this.headLength > this.maxEventChars) throw tooLong(this.maxEventChars)
      ;(this.head ??= []).push(start === 0 ? text : text.slice(start))
    }
    return events
  }

  /**
   * A chunk's text. With nothing held from the last chunk (no decoder yet) and this one ending in an ASCII byte, no
   * character spans the boundary, so the shared decoder's text is the streaming decoder's; a stream's first bytes go
   * to the shared one only without a byte-order mark, which the streaming decoder drops there (and only there).
   */
  private decode(chunk: Uint8Array): string {
    const whole = this.decoder === undefined && chunk[chunk.length - 1]! < 0x80 && (this.decoding || chunk[0] !== 0xef)
    const decoding = this.decoding
    this.decoding = true
    if (whole) return wholeChunks.decode(chunk)
    return (this.decoder ??= new TextDecoder('utf-8', { ignoreBOM: decoding })).decode(chunk, streaming)
  }

  private joinHead(tail: string): string {
    const line = this.head!.join('') + tail
    this.head = undefined
    this.headLength = 0
    return line
  }

  /** End of input: a final event without its blank line still counts (Gemini ends the body that way). */
  finish(): SseEvent[] {
    const events: SseEvent[] = []
    if (this.head !== undefined) this.takeLine(this.joinHead(''), events)
    this.takeLine('', events)
    return events
  }

  private addData(value: string): void {
    this.dataLength += value.length
    if (this.dataLength > this.maxEventChars) throw tooLong(this.maxEventChars)
    ;(this.dataLines ??= []).push(value)
  }

  private takeLine(line: string, events: SseEvent[]): void {
    if (line === '') {
      if (this.dataLines !== undefined) {
        events.push({ event: this.eventName, data: this.dataLines.length === 1 ? this.dataLines[0]! : this.dataLines.join('\n') })
        this.dataLines = undefined
        this.dataLength = 0
      }
      this.eventName = undefined
      return
    }
    // `data: …` is nearly every line of every stream: no field splitting for it.
    if (line.startsWith('data:')) {
      this.addData(line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5))
      return
    }
    if (line.charCodeAt(0) === 58) return // ':' starts a comment
    const colon = line.indexOf(':')
    const field = colon === -1 ? line : line.slice(0, colon)
    let value = colon === -1 ? '' : line.slice(colon + 1)
    if (value.charCodeAt(0) === 32) value = value.slice(1)
    if (field === 'data') this.addData(value)
    else if (field === 'event') this.eventName = value
  }
}

const streaming = { stream: true }
/** Decodes chunks that end whole (SseParser.decode); a mark is never dropped by it, as mid-stream it is text. */
const wholeChunks = new TextDecoder('utf-8', { ignoreBOM: true })

/**
 * `text` as its one event when it is exactly one event of a `data: ` line, with or without an `event: ` line before
 * it (`event: E\ndata: X\n\n`, no CR, no other line), else undefined: what the line-by-line parse would make of it,
 * without the lines. Each vendor's write is one such event (Anthropic's with its name, the others' without).
 */
function singleEvent(text: string): SseEvent | undefined {
  const end = text.length - 2
  if (end < 6 || text.charCodeAt(end) !== 10 || text.charCodeAt(end + 1) !== 10 || text.indexOf('\r') !== -1) return undefined
  let event: string | undefined
  let data = 0
  if (text.startsWith('event: ')) {
    data = text.indexOf('\n') + 1
    event = text.slice(7, data - 1)
  }
  if (!text.startsWith('data: ', data) || text.indexOf('\n', data + 6) !== end) return undefined
  return { event, data: text.slice(data + 6, end) }
}

function tooLong(maxChars: number): GatewayError {
  return new GatewayError('upstream', `Upstream sent a stream event longer than ${maxChars} characters`, { code: 'upstream_malformed' })
}

/** One SSE event as text; `data` must not contain newlines (JSON.stringify output never does). */
export function formatSse(data: string, event?: string): string {
  return event === undefined ? `data: ${data}\n\n` : `event: ${event}\ndata: ${data}\n\n`
}

export const sseHeaders = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
} as const
