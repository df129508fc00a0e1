import { isIP } from 'node:net'
import { AttemptController } from '../core/attempt-controller.ts'
import { ConnectionFailed, type Http1Answer } from './http1-answer.ts'
import { Connection, type ConnectionPool, socketHandlers } from './http1-connection.ts'

export { type BodySink, ConnectionFailed, type Http1Answer, RequestBodyFailed } from './http1-answer.ts'

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
 * closed. A kept connection idle for `idleMs` (`tlsIdleMs` on https:, either cut by the upstream's Keep-Alive hint) is
 * closed before the upstream's own keep-alive timeout can close it under a new request: a request is never sent
 * twice, so one that meets a closed connection fails. One the upstream closes while idle is dropped at its close.
 *
 * `http:` and `https:` origins (TLS with the certificate verified for the host, SNI sent); no proxies (http.ts keeps
 * fetch for those).
 */
export interface Http1ClientOptions {
  maxConnections: number
  /**
   * How long a kept-alive connection may wait unused, on an `http:` origin: shorter than the 5 s that Node's and
   * uvicorn's servers (local inference servers) keep one, so the upstream never closes it under a new request.
   */
  idleMs: number
  /**
   * The same on an `https:` origin: a new connection there costs a TCP and a TLS handshake, two round trips to a
   * distant API, so it is kept as fetch keeps its own (minutes); under the 60 s idle of the usual load balancers.
   * Either is cut to a second below what the upstream's `Keep-Alive: timeout=N` says, when it says it.
   */
  tlsIdleMs: number
  /** Unread body bytes past which the socket is paused. */
  highWaterBytes: number
  /** The longest response head (and trailer section) accepted. */
  headBytes: number
  /**
   * `https:` origins: certificates the upstream's may chain to, instead of the runtime's roots (Mozilla's, plus
   * `NODE_EXTRA_CA_CERTS` — the same as fetch trusts). Tests use it for their own loopback CA.
   */
  ca?: string
}

export const defaultHttp1ClientOptions: Http1ClientOptions = {
  maxConnections: 10_000,
  idleMs: 4000,
  tlsIdleMs: 55_000,
  highWaterBytes: 256 * 1024,
  headBytes: 64 * 1024,
}

/** A body sent as it is read (an upload from disk), its length declared up front. */
export interface StreamedBody {
  stream: ReadableStream<Uint8Array>
  length: number
}

export interface Http1Request {
  method: string
  /** Path and query. */
  path: string
  headers: Record<string, string>
  body: string | Uint8Array | StreamedBody
  /** Aborts the request: a signal, or an attempt's controller, which tells the answer directly (no listener). */
  signal?: AbortSignal | AttemptController
}

/** What a header field's name may be made of (RFC 9110 token). */
const token = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/

export class Http1Client implements ConnectionPool {
  private readonly idle: Connection[] = []
  private readonly waiting: { take(connection: Connection | undefined): void }[] = []
  /** Connections open or opening. */
  private open = 0
  private readonly hostHeader: string
  private readonly hostname: string
  private readonly port: number
  /** Bun.connect's TLS settings for an `https:` origin (verification is on, as it is by default). */
  private readonly tls: { rejectUnauthorized: boolean; serverName?: string; ca?: string } | undefined
  private closed = false
  /**
   * The newest TLS session an answered connection had: what every new connection offers to resume until a newer one
   * replaces it. RFC 8446 asks a client not to offer one ticket twice, so that its connections cannot be linked; a
   * gateway's connections to one origin under one API key are linked anyway, and a server that refuses a ticket
   * seen before answers with a full handshake.
   */
  session: Buffer | undefined
  /** New TLS connections whose handshake resumed a kept session (tests read it). */
  resumedHandshakes = 0

  constructor(
    readonly origin: URL,
    readonly options: Http1ClientOptions = defaultHttp1ClientOptions,
  ) {
    if (origin.protocol !== 'http:' && origin.protocol !== 'https:')
      throw new Error(`Http1Client speaks http: and https:, not ${origin.protocol}`)
    this.hostHeader = origin.host
    this.hostname = origin.hostname.replace(/^\[|\]$/g, '') // an IPv6 literal without its brackets, so isIP below knows it
    this.port = Number(origin.port) || (origin.protocol === 'https:' ? 443 : 80)
    // SNI names a host, never an address (RFC 6066); the certificate is checked against the address then.
    const named = isIP(this.hostname) === 0
    // rejectUnauthorized always said: Bun 1.4 takes a `tls` object with no key it knows (`{}`) for plain TCP.
    const verified = {
      rejectUnauthorized: true,
      ...(named ? { serverName: this.hostname } : {}),
      ...(options.ca ? { ca: options.ca } : {}),
    }
    this.tls = origin.protocol === 'https:' ? verified : undefined
  }

  /** Connections open now (in use, idle or opening), for /metrics and tests. */
  get connections(): number {
    return this.open
  }

  /**
   * Send `request` (its `host` header is the origin's); resolves with the answer once its head has come, rejects with
   * the signal's reason on an abort. A streamed body is written after the head as it is read, no faster than the
   * upstream takes it.
   */
  async request(request: Http1Request): Promise<Http1Answer> {
    const abort = request.signal
    if (abort instanceof AttemptController) {
      if (abort.aborted) throw abort.reason
    } else abort?.throwIfAborted()
    const connection = await this.connection(abort)
    const { body } = request
    const streamed = typeof body === 'string' || body instanceof Uint8Array ? undefined : body.stream
    return connection.send(this.wire(request), request.method, abort, streamed)
  }

  /** Close every idle connection and refuse new requests (requests in flight run to their end). */
  close(): void {
    this.closed = true
    for (const connection of this.idle.splice(0)) connection.destroy()
    for (const waiter of this.waiting.splice(0)) waiter.take(undefined)
  }

  private wire({ method, path, headers, body }: Http1Request): Uint8Array {
    // The client decodes no content coding, so it asks for none (a caller's own accept-encoding is not sent).
    let head = `${method} ${path} HTTP/1.1\r\nhost: ${this.hostHeader}\r\naccept-encoding: identity\r\n`
    for (const name in headers) {
      const value = headers[name]!
      if (name.toLowerCase() === 'accept-encoding') continue
      // A name or value that could end the line would let a caller's text write headers (or a request) of its own.
      if (!token.test(name) || /[\r\n\0]/.test(value)) throw new TypeError(`Header ${JSON.stringify(name)} is not a valid header field`)
      head += `${name}: ${value}\r\n`
    }
    if (typeof body !== 'string' && !(body instanceof Uint8Array))
      return Buffer.from(`${head}content-length: ${body.length}\r\n\r\n`, 'latin1')
    // Head and body written into one buffer: one allocation and one copy, not three and two.
    const length = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength
    head += `content-length: ${length}\r\n\r\n`
    const wire = Buffer.allocUnsafe(head.length + length)
    wire.write(head, 0, 'latin1')
    if (typeof body === 'string') wire.write(body, head.length, 'utf8')
    else wire.set(body, head.length)
    return wire
  }

  /** An idle connection, a new one within the limit, or the next one freed. */
  private async connection(abort: AbortSignal | AttemptController | undefined): Promise<Connection> {
    if (this.closed) throw new ConnectionFailed(`The client for ${this.origin.host} is closed`)
    const kept = this.idle.pop()
    if (kept) {
      kept.wake()
      return kept
    }
    // Only a wait or a new connection listens for the abort: an attempt's controller makes its signal for it then.
    const signal = abort instanceof AttemptController ? abort.signal : abort
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
      const secured = this.tls ? connection.secured() : undefined
      secured?.catch(() => {}) // awaited below; a refusal before then must not count as unhandled
      connection.socket = await Bun.connect<Connection>({
        hostname: this.hostname,
        port: this.port,
        data: connection,
        socket: socketHandlers,
        ...(this.tls ? { tls: this.tls } : {}),
      })
      await secured
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
    const { keepAliveMs } = connection
    const idleMs = Math.min(
      this.tls ? this.options.tlsIdleMs : this.options.idleMs,
      keepAliveMs === undefined ? Infinity : keepAliveMs - 1000,
    )
    if (idleMs <= 0) return connection.destroy() // the upstream keeps it a second or less: not worth the race
    this.idle.push(connection)
    connection.sleep(idleMs)
  }

  keepSession(session: Buffer | undefined): void {
    this.session = session
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
