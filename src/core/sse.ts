/**
 * Server-sent events, parsed and written in one place for every protocol.
 * The parser is incremental: it accepts arbitrary byte chunks (a chunk may end mid-line or mid-character)
 * and handles LF, CRLF and CR line endings, comments and multi-line `data:` fields as the WHATWG spec says.
 */
import { GatewayError } from './errors.ts'

export interface SseEvent {
  event?: string
  data: string
  /**
   * `data` as JSON once someone has parsed it (eventJson): a passthrough stream's drop test and its decoder read
   * the same event, and parse it once between them.
   */
  json?: unknown
}

/** The event's data as JSON, parsed at most once however many read it. Throws as JSON.parse does. */
export function eventJson(event: SseEvent): unknown {
  const json = event.json
  return json !== undefined ? json : (event.json = JSON.parse(event.data) as unknown)
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
    const events: SseEvent[] = []
    let start = 0
    // The usual chunk: whole `data: …` events and nothing held from before (each vendor write is one event or more).
    if (this.dataLines === undefined && this.head === undefined && !this.afterCr && this.eventName === undefined) {
      start = wholeEvents(text, events, this.maxEventChars)
      if (start === text.length) return events
    }
    if (this.afterCr) {
      this.afterCr = false
      if (text.charCodeAt(0) === 10) text = text.slice(1)
    }
    if (text.indexOf('\r') === -1) {
      // LF only, as every vendor sends: indexOf finds the line ends natively, several times faster than a loop
      // over the characters (~6 µs for a short answer's stream before, bench/, 2026-11-23).
      for (let end = text.indexOf('\n', start); end !== -1; end = text.indexOf('\n', start)) {
        this.takeLine(this.head === undefined ? text.slice(start, end) : this.joinHead(text.slice(start, end)), events)
        start = end + 1
      }
    } else {
      for (let i = start; i < text.length; i++) {
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
        const data = this.dataLines.length === 1 ? this.dataLines[0]! : this.dataLines.join('\n')
        events.push({ event: this.eventName, data, json: undefined })
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
 * The whole events at the start of `text`, each exactly one `data: ` line, with or without an `event: ` line before
 * it (`event: E\ndata: X\n\n`, no CR, no other line), pushed to `events` as the line-by-line parse would make them,
 * without the lines; returns where they end (`text.length` when that is all there was), for the parse to go on from
 * there. Each vendor's write is one or more such events (Anthropic's with their names, the others' without).
 */
function wholeEvents(text: string, events: SseEvent[], maxEventChars: number): number {
  if (text.indexOf('\r') !== -1) return 0
  let start = 0
  while (start < text.length) {
    let event: string | undefined
    let data = start
    if (text.startsWith('event: ', start)) {
      data = text.indexOf('\n', start) + 1
      if (data === 0) return start
      event = text.slice(start + 7, data - 1)
    }
    if (!text.startsWith('data: ', data)) return start
    const end = text.indexOf('\n', data + 6)
    if (end === -1 || text.charCodeAt(end + 1) !== 10) return start
    if (end - data - 6 > maxEventChars) throw tooLong(maxEventChars)
    events.push({ event, data: text.slice(data + 6, end), json: undefined })
    start = end + 2
  }
  return start
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
