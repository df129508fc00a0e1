import type { Socket } from 'bun'
import { Http1ResponseParser, MalformedResponse, type ResponseSink } from '../core/http1-response.ts'

/**
 * An HTTP/1.1 client for one upstream origin on plain sockets (`Bun.connect`), connections kept alive in a pool of at
 * most `maxConnections`: requests beyond it wait their turn here, in the open, instead of in fetch's hidden queue.
 *
 * Why not `fetch`: fetch runs every request on Bun's HTTP client thread, a hand-over and a wake-up each way, and
 * hands a streamed body to JS through a ReadableStream and a promise per read. With this client the bytes reach JS in
 * the socket's own callback on the main thread. bench/socket-proxy.ts measured the trivial proxy on it at 0.77× its
 * CPU at 400 requests/s, 1.01× per streamed chunk (a JS read loop over fetch: 1.20×) and 7 KB per open stream (11
 * for fetch piped natively, 19 read in JS) — docs/capacity.md, fourteenth round.
 *
 * An answer resolves at its head; its body is read chunk by chunk (`read`) or whole (`text`). While more than
 * `highWaterBytes` wait unread, the socket is paused: a slow reader slows the upstream instead of filling memory.
 * A connection is reused only after its answer was read to the end; one given up mid-answer (`cancel`, an abort) is
 * closed. A kept connection idle for `idleMs` is closed before the upstream's own keep-alive timeout can close it
 * under a new request: a request is never sent twice, so one that meets a closed connection fails.
 *
 * Plain `http:` origins only, so far: TLS and proxies are the wiring's to add (docs/capacity.md).
 */
export interface Http1ClientOptions {
  maxConnections: number
  /** How long a kept-alive connection may wait unused. */
  idleMs: number
  /** Unread body bytes past which the socket is paused. */
  highWaterBytes: number
  /** The longest response head (and trailer section) accepted. */
  headBytes: number
}

export const defaultHttp1ClientOptions: Http1ClientOptions = {
  maxConnections: 10_000,
  idleMs: 4000,
  highWaterBytes: 256 * 1024,
  headBytes: 64 * 1024,
}

export interface Http1Request {
  method: string
  /** Path and query. */
  path: string
  headers: Record<string, string>
  body: string | Uint8Array
  signal?: AbortSignal
}

/** The connection failed or closed before its answer was complete (refused, reset, cut). */
export class ConnectionFailed extends Error {
  override readonly name = 'ConnectionFailed'
}

/** What a header field's name may be made of (RFC 9110 token). */
const token = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/

type ReadResult = { done: false; value: Uint8Array } | { done: true; value: undefined }
const doneResult: ReadResult = { done: true, value: undefined }

export class Http1Client {
  private readonly idle: Connection[] = []
  private readonly waiting: { take(connection: Connection | undefined): void }[] = []
  /** Connections open or opening. */
  private open = 0
  private readonly hostHeader: string
  private closed = false

  constructor(
    readonly origin: URL,
    readonly options: Http1ClientOptions = defaultHttp1ClientOptions,
  ) {
    if (origin.protocol !== 'http:') throw new Error(`Http1Client speaks plain http: only, not ${origin.protocol}`)
    this.hostHeader = origin.host
  }

  /** Connections open now (in use, idle or opening), for /metrics and tests. */
  get connections(): number {
    return this.open
  }

  /** Send `request` (its `host` header is the origin's); resolves with the answer once its head has come, rejects with the signal's reason on an abort. */
  async request(request: Http1Request): Promise<Http1Answer> {
    const { signal } = request
    signal?.throwIfAborted()
    const connection = await this.connection(signal)
    return connection.send(this.wire(request), request.method, signal)
  }

  /** Close every idle connection and refuse new requests (requests in flight run to their end). */
  close(): void {
    this.closed = true
    for (const connection of this.idle.splice(0)) connection.destroy()
    for (const waiter of this.waiting.splice(0)) waiter.take(undefined)
  }

  private wire({ method, path, headers, body }: Http1Request): Uint8Array {
    let head = `${method} ${path} HTTP/1.1\r\nhost: ${this.hostHeader}\r\n`
    for (const name in headers) {
      const value = headers[name]!
      // A name or value that could end the line would let a caller's text write headers (or a request) of its own.
      if (!token.test(name) || /[\r\n\0]/.test(value)) throw new TypeError(`Header ${JSON.stringify(name)} is not a valid header field`)
      head += `${name}: ${value}\r\n`
    }
    const bytes = typeof body === 'string' ? Buffer.from(body) : body
    head += `content-length: ${bytes.byteLength}\r\n\r\n`
    return Buffer.concat([Buffer.from(head, 'latin1'), bytes])
  }

  /** An idle connection, a new one within the limit, or the next one freed. */
  private async connection(signal: AbortSignal | undefined): Promise<Connection> {
    if (this.closed) throw new ConnectionFailed(`The client for ${this.origin.host} is closed`)
    const kept = this.idle.pop()
    if (kept) {
      kept.wake()
      return kept
    }
    if (this.open < this.options.maxConnections) return this.connectWithin(signal)
    const turn = await new Promise<Connection | undefined>((resolve, reject) => {
      const waiter = { take: resolve }
      this.waiting.push(waiter)
      signal?.addEventListener(
        'abort',
        () => {
          const at = this.waiting.indexOf(waiter)
          if (at !== -1) this.waiting.splice(at, 1)
          reject(signal.reason)
        },
        { once: true },
      )
    })
    if (!turn) return this.connection(signal) // a slot freed by a connection that closed: open one
    return turn
  }

  /**
   * A new connection, or the signal's reason as soon as it aborts: a host that never completes the TCP handshake
   * must not hold the request past its timers. A connection that completes after all is kept for the next request.
   */
  private connectWithin(signal: AbortSignal | undefined): Promise<Connection> {
    const connecting = this.connect()
    if (!signal) return connecting
    return new Promise<Connection>((resolve, reject) => {
      const abort = () => {
        reject(signal.reason)
        connecting.then(
          (connection) => this.reuse(connection),
          () => {},
        )
      }
      signal.addEventListener('abort', abort, { once: true })
      connecting.then(
        (connection) => {
          signal.removeEventListener('abort', abort)
          resolve(connection)
        },
        (error: unknown) => {
          signal.removeEventListener('abort', abort)
          reject(error)
        },
      )
    })
  }

  private async connect(): Promise<Connection> {
    this.open++
    const connection = new Connection(this)
    try {
      connection.socket = await Bun.connect<Connection>({
        hostname: this.origin.hostname,
        port: Number(this.origin.port || 80),
        data: connection,
        socket: socketHandlers,
      })
      return connection
    } catch (error) {
      connection.neverOpened()
      throw new ConnectionFailed(`Could not connect to ${this.origin.host}: ${(error as Error).message}`)
    }
  }

  /** A connection finished an answer and may be reused: the next waiter takes it, else it waits idle. */
  reuse(connection: Connection): void {
    const waiter = this.waiting.shift()
    if (waiter) return waiter.take(connection)
    if (this.closed) return connection.destroy()
    this.idle.push(connection)
    connection.sleep(this.options.idleMs)
  }

  /** A connection closed: its slot is free for the next waiter. */
  released(): void {
    this.open--
    this.waiting.shift()?.take(undefined)
  }

  /** An idle connection closed (by its timer or the upstream): it is no longer offered. */
  forget(connection: Connection): void {
    const at = this.idle.indexOf(connection)
    if (at !== -1) this.idle.splice(at, 1)
  }
}

const socketHandlers = {
  data(socket: Socket<Connection>, data: Uint8Array) {
    socket.data.received(data)
  },
  drain(socket: Socket<Connection>) {
    socket.data.drained()
  },
  close(socket: Socket<Connection>) {
    socket.data.closed(undefined)
  },
  error(socket: Socket<Connection>, error: Error) {
    socket.data.closed(error)
  },
}

/** One socket to the origin, reading one answer at a time. */
class Connection implements ResponseSink {
  socket!: Socket<Connection>
  private readonly parser: Http1ResponseParser
  private answer: Http1Answer | undefined
  private headed: { resolve(answer: Http1Answer): void; reject(error: unknown): void } | undefined
  private unsent: Uint8Array | undefined
  private idleTimer: ReturnType<typeof setTimeout> | undefined
  private gone = false

  constructor(readonly client: Http1Client) {
    this.parser = new Http1ResponseParser(this, { headBytes: client.options.headBytes })
  }

  send(wire: Uint8Array, method: string, signal: AbortSignal | undefined): Promise<Http1Answer> {
    this.parser.expect(method)
    const answer = new Http1Answer(this, signal)
    this.answer = answer
    const headed = new Promise<Http1Answer>((resolve, reject) => (this.headed = { resolve, reject }))
    const written = this.socket.write(wire)
    if (written < wire.byteLength) this.unsent = wire.subarray(Math.max(0, written))
    return headed
  }

  drained(): void {
    if (!this.unsent) return
    const written = this.socket.write(this.unsent)
    this.unsent = written < this.unsent.byteLength ? this.unsent.subarray(Math.max(0, written)) : undefined
  }

  received(data: Uint8Array): void {
    try {
      this.parser.push(data)
    } catch (error) {
      this.fail(error)
    }
  }

  head(status: number, fields: [string, string][]): void {
    const answer = this.answer!
    answer.status = status
    answer.headers = new Headers(fields)
    this.headed?.resolve(answer)
    this.headed = undefined
  }

  body(bytes: Uint8Array): void {
    this.answer!.arrived(bytes)
  }

  end(reusable: boolean): void {
    const answer = this.answer!
    this.answer = undefined
    answer.ended()
    if (reusable && !this.unsent) this.client.reuse(this)
    else this.destroy()
  }

  pause(): void {
    this.socket.pause()
  }

  resume(): void {
    this.socket.resume()
  }

  /** Give up the answer in progress: the connection cannot be reused mid-answer, so it closes. */
  abandon(reason: unknown): void {
    if (this.answer === undefined) return
    this.fail(reason)
  }

  /** Bun.connect failed: the slot counted for it is free again, once (a close event may follow for the same socket). */
  neverOpened(): void {
    if (this.gone) return
    this.gone = true
    this.client.released()
  }

  destroy(): void {
    if (this.gone) return
    this.gone = true
    this.stopIdleTimer()
    this.client.forget(this)
    this.client.released()
    this.socket.terminate()
  }

  /**
   * Kept idle: closed after `idleMs` unless used again, and neither the timer nor the socket keeps the process alive
   * (a server that stops does not wait for its idle upstream connections).
   */
  sleep(idleMs: number): void {
    this.idleTimer = setTimeout(() => this.destroy(), idleMs)
    this.idleTimer.unref()
    this.socket.unref()
  }

  /** Taken from the idle ones for a request. */
  wake(): void {
    this.stopIdleTimer()
    this.socket.ref()
  }

  private stopIdleTimer(): void {
    clearTimeout(this.idleTimer)
    this.idleTimer = undefined
  }

  closed(error: Error | undefined): void {
    if (this.gone) return
    try {
      this.parser.close() // a body delimited by the close ends here
    } catch (malformed) {
      this.fail(error ? new ConnectionFailed(error.message) : malformed)
    }
    if (this.answer !== undefined) this.fail(new ConnectionFailed('The upstream closed the connection before answering'))
    this.destroy()
  }

  /** The answer in progress fails with `error` (before its head: the request rejects), and the connection closes. */
  private fail(error: unknown): void {
    const failure = error instanceof MalformedResponse ? new ConnectionFailed(error.message) : error
    const answer = this.answer
    this.answer = undefined
    if (this.headed) {
      this.headed.reject(failure)
      this.headed = undefined
    } else answer?.failed(failure)
    this.destroy()
  }
}

/** Where `Http1Answer.pipe` hands a body as it arrives. */
export interface BodySink {
  /** A piece of the body (a view, valid during the call); a promise when the sink is full: reading waits for it. */
  chunk(bytes: Uint8Array): void | Promise<unknown>
  end(): void
  fail(error: unknown): void
}

/**
 * An answer whose head has come. Its body is read with `read` (a promise a piece) or `text` (whole), or handed as it
 * arrives, in the socket's own callback, to a sink (`pipe`): a relay writes each piece on at once, without a promise
 * a chunk — which is most of what reading a stream in JS costs (bench/socket-proxy.ts: 1.01× the native pipe's CPU a
 * chunk piped, 1.21× read a promise at a time).
 */
export class Http1Answer {
  status = 0
  headers!: Headers
  private readonly queue: Uint8Array[] = []
  private queuedBytes = 0
  private finished = false
  private failure: unknown
  private waiter: { resolve(result: ReadResult): void; reject(error: unknown): void } | undefined
  private paused = false
  private sink: BodySink | undefined

  /** Body bytes arrived and not read yet. */
  get buffered(): number {
    return this.queuedBytes
  }

  constructor(
    private readonly connection: Connection,
    private readonly signal: AbortSignal | undefined,
  ) {
    signal?.addEventListener('abort', this, { once: true })
  }

  get ok(): boolean {
    return this.status >= 200 && this.status < 300
  }

  /** The signal was aborted: the answer fails with its reason and the connection closes. */
  handleEvent(): void {
    if (!this.finished) this.connection.abandon(this.signal!.reason)
  }

  /** The next piece of the body, or done. Rejects when the connection failed, or the signal aborted, first. */
  read(): Promise<ReadResult> {
    const next = this.queue.shift()
    if (next !== undefined) {
      this.queuedBytes -= next.byteLength
      if (this.paused && this.queuedBytes <= this.connection.client.options.highWaterBytes / 2) {
        this.paused = false
        this.connection.resume()
      }
      return Promise.resolve({ done: false, value: next })
    }
    if (this.failure !== undefined) return Promise.reject(this.failure)
    if (this.finished) return Promise.resolve(doneResult)
    return new Promise<ReadResult>((resolve, reject) => (this.waiter = { resolve, reject }))
  }

  /** The whole body as text (UTF-8). */
  async text(): Promise<string> {
    const parts: Uint8Array[] = []
    for (let next = await this.read(); !next.done; next = await this.read()) parts.push(next.value)
    return Buffer.concat(parts).toString('utf8')
  }

  /** Hand the body to `sink` from now on: what arrived before first, then each piece as it comes, then its end. */
  pipe(sink: BodySink): void {
    this.sink = sink
    // Paused for the queue's sake (read past the high-water mark): the sink decides from here on.
    const pausedForQueue = this.paused
    this.paused = false
    for (let next = this.queue.shift(); next !== undefined; next = this.queue.shift()) this.give(next)
    this.queuedBytes = 0
    if (pausedForQueue && !this.paused) this.connection.resume()
    if (this.failure !== undefined) sink.fail(this.failure)
    else if (this.finished) sink.end()
  }

  /** The rest of the body is not wanted: the connection closes (unless the answer was already complete). */
  cancel(): void {
    this.queue.length = 0
    if (!this.finished) this.connection.abandon(new ConnectionFailed('The answer was cancelled'))
  }

  arrived(bytes: Uint8Array): void {
    if (this.sink) return this.give(bytes)
    const waiter = this.waiter
    if (waiter) {
      this.waiter = undefined
      return waiter.resolve({ done: false, value: bytes })
    }
    this.queue.push(bytes)
    this.queuedBytes += bytes.byteLength
    if (!this.paused && this.queuedBytes > this.connection.client.options.highWaterBytes) {
      this.paused = true
      this.connection.pause()
    }
  }

  /** A piece to the sink; while the sink is full, the socket is paused. */
  private give(bytes: Uint8Array): void {
    const full = this.sink!.chunk(bytes)
    if (full === undefined || this.paused) return
    this.paused = true
    this.connection.pause()
    const resume = () => this.resumeAfterFull()
    full.then(resume, resume)
  }

  private resumeAfterFull(): void {
    this.paused = false
    if (!this.finished) this.connection.resume()
  }

  ended(): void {
    this.finished = true
    this.signal?.removeEventListener('abort', this)
    this.sink?.end()
    this.waiter?.resolve(doneResult)
    this.waiter = undefined
  }

  failed(error: unknown): void {
    this.finished = true
    this.failure = error
    this.signal?.removeEventListener('abort', this)
    this.sink?.fail(error)
    this.waiter?.reject(error)
    this.waiter = undefined
  }
}
