import { contentLength, CR, headEnd, headerFields, hexValue, latin1, LF, MalformedResponse, stripCr } from './http1-head.ts'

export { MalformedResponse }

/**
 * An HTTP/1.1 response read off a connection as its bytes arrive (RFC 9112): the head, then the body as its framing
 * says — a Content-Length, chunked transfer coding, or everything until the connection closes — and whether the
 * connection may carry another request after it. Informational (1xx) heads are skipped.
 *
 * This is the reading half of an upstream client on plain sockets (bench/socket-proxy.ts measures what one saves
 * against `fetch`: no HTTP client thread between the upstream and the gateway, no ReadableStream per answer, and the
 * bytes seen by JS as they come). Body bytes are handed on as views of what was pushed, never copied; a frame split
 * between two reads is joined once.
 *
 * One parser per connection; `expect()` before each response. Pure: no I/O, no timers.
 */

/** Where a parsed response goes. */
export interface ResponseSink {
  /** The final head: its status and its header fields in order, names lowercased (framing fields included). */
  head(status: number, headers: [string, string][]): void
  /** A piece of the body: a view into the bytes pushed, valid during the call (copy it to keep it). */
  body(bytes: Uint8Array): void
  /** The response is complete; `reusable`: the connection may carry another request. */
  end(reusable: boolean): void
}

export interface ResponseLimits {
  /** The longest head accepted (status line and header fields, informational heads each on their own). */
  headBytes: number
}

const defaultLimits: ResponseLimits = { headBytes: 64 * 1024 }
/** A chunk-size line longer than this (extensions included) is not a real one. */
const chunkLineBytes = 4096

// What the parser waits for next.
const awaitingHead = 0
const lengthBody = 1
const chunkSize = 2
const chunkData = 3
const chunkEnd = 4
const trailers = 5
const untilClose = 6
const complete = 7
const idle = 8

export class Http1ResponseParser {
  private phase = idle
  /** Bytes of an unfinished head, chunk-size line or trailer line, kept until the rest comes. */
  private pending: Uint8Array | undefined
  /** Bytes left of a Content-Length body or of the current chunk. */
  private remaining = 0
  private reusable = false
  private trailerBytes = 0
  /** The response answers a HEAD request: its head describes a body that is not sent. */
  private headOnly = false

  constructor(
    private readonly sink: ResponseSink,
    private readonly limits: ResponseLimits = defaultLimits,
  ) {}

  /** A request was sent: the next bytes are its response. `method` matters only for HEAD. */
  expect(method = 'POST'): void {
    if (this.phase !== idle && this.phase !== complete) throw new Error('a response is still being read on this connection')
    this.phase = awaitingHead
    this.pending = undefined
    this.headOnly = method === 'HEAD'
  }

  /** Whether a response is being read (its request sent, its end not reached). */
  get reading(): boolean {
    return this.phase !== idle && this.phase !== complete
  }

  /** Bytes from the connection. Throws MalformedResponse when they break the protocol. */
  push(chunk: Uint8Array): void {
    let bytes = chunk
    if (this.pending !== undefined) {
      bytes = Buffer.concat([this.pending, chunk])
      this.pending = undefined
    }
    let at = 0
    while (at < bytes.length) {
      switch (this.phase) {
        case awaitingHead:
          at = this.readHead(bytes, at)
          break
        case lengthBody:
        case chunkData: {
          const end = Math.min(bytes.length, at + this.remaining)
          this.sink.body(at === 0 && end === bytes.length ? bytes : bytes.subarray(at, end))
          this.remaining -= end - at
          at = end
          if (this.remaining === 0) {
            if (this.phase === lengthBody) this.finish()
            else this.phase = chunkEnd
          }
          break
        }
        case chunkSize:
          at = this.readChunkSize(bytes, at)
          break
        case chunkEnd:
          at = this.readChunkEnd(bytes, at)
          break
        case trailers:
          at = this.readTrailer(bytes, at)
          break
        case untilClose:
          this.sink.body(at === 0 ? bytes : bytes.subarray(at))
          at = bytes.length
          break
        default:
          throw new MalformedResponse('The upstream sent bytes that answer no request')
      }
    }
  }

  /**
   * The connection closed. A body delimited by the close ends here; a response cut short throws MalformedResponse
   * (an idle connection closing, or one whose response was complete, is not an error).
   */
  close(): void {
    if (this.phase === untilClose) this.finish()
    else if (this.phase !== idle && this.phase !== complete) {
      this.phase = idle
      throw new MalformedResponse('The upstream closed the connection before its response was complete')
    }
  }

  private finish(): void {
    this.phase = complete
    this.sink.end(this.reusable)
  }

  /** Bytes from `at` kept until more come: as long as `limit` allows, else the response is refused. */
  private keep(bytes: Uint8Array, at: number, limit: number, what: string): number {
    if (bytes.length - at > limit) throw new MalformedResponse(`The upstream sent ${what} longer than ${limit} bytes`)
    this.pending = bytes.subarray(at)
    return bytes.length
  }

  private readHead(bytes: Uint8Array, at: number): number {
    const end = headEnd(bytes, at)
    if (end === -1) return this.keep(bytes, at, this.limits.headBytes, 'a response head')
    if (end - at > this.limits.headBytes)
      throw new MalformedResponse(`The upstream sent a response head longer than ${this.limits.headBytes} bytes`)
    const lines = latin1(bytes, at, end).split('\n')
    const statusLine = stripCr(lines[0]!)
    const match = /^HTTP\/1\.([01]) (\d{3})(?: |$)/.exec(statusLine)
    if (!match) throw new MalformedResponse(`The upstream sent no HTTP/1.x status line (${JSON.stringify(statusLine.slice(0, 60))})`)
    const status = Number(match[2])
    const headers = headerFields(lines)
    const next = bytes[end] === CR ? end + 2 : end + 1
    // An interim answer (100 Continue, 103 Early Hints): the real one follows.
    if (status < 200) {
      if (status === 101) throw new MalformedResponse('The upstream switched protocols, which no request asked for')
      return next
    }
    this.frame(status, match[1] === '1', headers)
    this.sink.head(status, headers)
    if (this.phase === complete) this.sink.end(this.reusable)
    return next
  }

  /** How the body is delimited (RFC 9112 §6.3), and whether the connection can be used again after it. */
  private frame(status: number, http11: boolean, headers: [string, string][]): void {
    let transferEncoding: string | undefined
    let length: number | undefined
    let connection = ''
    for (const [name, value] of headers) {
      if (name === 'transfer-encoding') transferEncoding = transferEncoding === undefined ? value : `${transferEncoding},${value}`
      else if (name === 'content-length') length = contentLength(value, length)
      else if (name === 'connection') connection += `,${value.toLowerCase()}`
    }
    const tokens = connection.split(',').map((token) => token.trim())
    this.reusable = http11 ? !tokens.includes('close') : tokens.includes('keep-alive')
    if (this.headOnly || status === 204 || status === 304) {
      this.phase = complete
      return
    }
    if (transferEncoding !== undefined) {
      // Both framings at once is how responses are smuggled: chunked decides, and the connection is not reused.
      if (length !== undefined) this.reusable = false
      const codings = transferEncoding.toLowerCase().split(',')
      if (codings.at(-1)!.trim() === 'chunked') this.phase = chunkSize
      else {
        this.phase = untilClose
        this.reusable = false
      }
      return
    }
    if (length === undefined) {
      this.phase = untilClose
      this.reusable = false
      return
    }
    this.remaining = length
    this.phase = length === 0 ? complete : lengthBody
  }

  private readChunkSize(bytes: Uint8Array, at: number): number {
    const lineEnd = bytes.indexOf(LF, at)
    if (lineEnd === -1) return this.keep(bytes, at, chunkLineBytes, 'a chunk-size line')
    if (lineEnd - at > chunkLineBytes)
      throw new MalformedResponse(`The upstream sent a chunk-size line longer than ${chunkLineBytes} bytes`)
    let size = 0
    let digits = 0
    let index = at
    for (; index < lineEnd; index++) {
      const value = hexValue(bytes[index]!)
      if (value === -1) break
      size = size * 16 + value
      digits++
    }
    // What may follow the digits: whitespace and chunk extensions (ignored), then the CR.
    const rest = bytes[index]
    if (digits === 0 || digits > 12 || (index < lineEnd && rest !== CR && rest !== 0x3b && rest !== 0x20 && rest !== 0x09))
      throw new MalformedResponse(
        `The upstream sent a malformed chunk size (${JSON.stringify(latin1(bytes, at, Math.min(lineEnd, at + 40)))})`,
      )
    if (size === 0) {
      this.phase = trailers
      this.trailerBytes = 0
    } else {
      this.remaining = size
      this.phase = chunkData
    }
    return lineEnd + 1
  }

  /** The line end that closes a chunk's data. */
  private readChunkEnd(bytes: Uint8Array, at: number): number {
    const first = bytes[at]
    if (first === LF) {
      this.phase = chunkSize
      return at + 1
    }
    if (first !== CR) throw new MalformedResponse('The upstream sent a chunk longer than its size said')
    if (at + 1 === bytes.length) return this.keep(bytes, at, 1, 'a line end')
    if (bytes[at + 1] !== LF) throw new MalformedResponse('The upstream sent a chunk longer than its size said')
    this.phase = chunkSize
    return at + 2
  }

  /** Trailer fields after the last chunk, ignored; the empty line ends the response. */
  private readTrailer(bytes: Uint8Array, at: number): number {
    const lineEnd = bytes.indexOf(LF, at)
    const limit = this.limits.headBytes - this.trailerBytes
    if (lineEnd === -1) return this.keep(bytes, at, limit, 'trailer fields')
    if (lineEnd - at > limit) throw new MalformedResponse(`The upstream sent trailer fields longer than ${this.limits.headBytes} bytes`)
    this.trailerBytes += lineEnd + 1 - at
    if (lineEnd === at || (lineEnd === at + 1 && bytes[at] === CR)) this.finish()
    return lineEnd + 1
  }
}
