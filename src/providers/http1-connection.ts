import type { Socket } from 'bun'
import { Http1ResponseParser, MalformedResponse, type ResponseSink } from '../core/http1-response.ts'
import { HeaderFields } from '../core/http1-head.ts'
import { type Deadline, type DeadlineLane, laneOf } from '../core/deadlines.ts'
import type { AttemptController } from '../core/attempt-controller.ts'
import { ConnectionFailed, Http1Answer, RequestBodyFailed } from './http1-answer.ts'

/** What a connection asks of the pool it belongs to (http1-client.ts). */
export interface ConnectionPool {
  readonly options: { highWaterBytes: number; headBytes: number }
  /** The connection finished an answer and may carry another request. */
  reuse(connection: Connection): void
  /** The connection closed: its slot is free. */
  released(): void
  /** An idle connection closed: it is no longer offered. */
  forget(connection: Connection): void
  /** `https:` origins: the TLS session a new connection offers to resume (the newest one kept), if any. */
  readonly session: Buffer | undefined
  /** A TLS session to offer next (undefined: none; a refused handshake forgets the one it offered). */
  keepSession(session: Buffer | undefined): void
  /** New TLS connections whose handshake resumed a kept session. */
  resumedHandshakes: number
}

/** The socket callbacks of every connection (one object, no closures per socket). */
export const socketHandlers = {
  open(socket: Socket<Connection>) {
    // Offered before the handshake starts (Bun reads it only here): a resumed handshake skips the certificate's
    // chain and signature checks, ~a fifth of a new connection's CPU on the main thread (docs/capacity.md).
    const { session } = socket.data.client
    if (session) socket.setSession(session)
  },
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
  handshake(socket: Socket<Connection>, success: boolean, authorizationError: Error | null) {
    socket.data.handshaken(success, authorizationError)
  },
}

/**
 * A `Keep-Alive: timeout=N` header's N, in ms (RFC 9112 leaves the header to HTTP/1.0's practice: Node's servers send
 * it). The connection must be used again well before the server closes it, so the caller takes a second off.
 */
function keepAliveHint(header: string | null): number | undefined {
  if (header === null) return undefined
  const timeout = /(?:^|[,;\s])timeout\s*=\s*(\d+)/i.exec(header)
  return timeout ? Number(timeout[1]) * 1000 : undefined
}

/**
 * One socket to the origin, reading one answer at a time. Kept idle, it waits in the lane of its idle time
 * (core/deadlines.ts) rather than on a timer of its own, set and cleared on every request.
 */
export class Connection implements ResponseSink, Deadline {
  socket!: Socket<Connection>
  private readonly parser: Http1ResponseParser
  private answer: Http1Answer | undefined
  private headed: { resolve(answer: Http1Answer): void; reject(error: unknown): void } | undefined
  private unsent: Uint8Array | undefined
  /** A streamed body is being written (pump): the connection cannot carry another request until it has been. */
  private sending = false
  /** The pump, waiting for the socket to take what it could not yet. */
  private pumpWaits: (() => void) | undefined
  dueAt = 0
  lane: DeadlineLane | undefined = undefined
  laneNext: Deadline | undefined = undefined
  lanePrevious: Deadline | undefined = undefined
  private gone = false
  /** A TLS connection whose session has not yet been handed to the pool (it is, once, after the first answer). */
  private unkeptSession = false
  /** How long the upstream said it keeps an idle connection (`Keep-Alive: timeout=N`), in ms; undefined: it did not say. */
  keepAliveMs: number | undefined
  /** An `https:` connection's handshake, until it ends: verified (resolve), or refused or cut (reject). */
  private securing: { resolve(): void; reject(error: Error): void } | undefined

  constructor(readonly client: ConnectionPool) {
    this.parser = new Http1ResponseParser(this, { headBytes: client.options.headBytes })
  }

  /** `wire` is the request, or with `rest` its head: `rest` is written after it as it is read (pump). */
  send(
    wire: Uint8Array,
    method: string,
    signal: AbortSignal | AttemptController | undefined,
    rest?: ReadableStream<Uint8Array>,
  ): Promise<Http1Answer> {
    this.parser.expect(method)
    const answer = new Http1Answer(this, this.client.options.highWaterBytes, signal)
    this.answer = answer
    const headed = new Promise<Http1Answer>((resolve, reject) => (this.headed = { resolve, reject }))
    this.write(wire)
    if (rest) void this.pump(rest.getReader(), answer)
    return headed
  }

  private write(bytes: Uint8Array): void {
    const written = this.socket.write(bytes)
    this.unsent = written < bytes.byteLength ? bytes.subarray(Math.max(0, written)) : undefined
  }

  drained(): void {
    if (!this.unsent) return
    this.write(this.unsent)
    if (!this.unsent) this.wakePump()
  }

  /**
   * A streamed body written a read at a time, the next read only once the socket took the last (an upload is held
   * in memory no more than a read of it). It stops when the answer ends or fails first (an upstream may refuse
   * before reading the whole body); a connection whose body was not sent whole is not reused. A body that fails to
   * read (a spooled file that shrank) fails the request.
   */
  private async pump(reader: ReadableStreamDefaultReader<Uint8Array>, answer: Http1Answer): Promise<void> {
    this.sending = true
    const current = () => this.answer === answer && !this.gone
    try {
      while (current()) {
        if (this.unsent) await new Promise<void>((resolve) => (this.pumpWaits = resolve))
        if (!current()) break
        const { done, value } = await reader.read()
        if (done) {
          this.sending = false
          return
        }
        if (current()) this.write(value)
      }
    } catch (error) {
      if (current())
        this.fail(new RequestBodyFailed(`The request body failed to read: ${(error as Error)?.message ?? error}`, { cause: error }))
    } finally {
      reader.cancel().catch(() => {}) // the file it reads is closed when the body stopped short
    }
  }

  private wakePump(): void {
    const wake = this.pumpWaits
    this.pumpWaits = undefined
    wake?.()
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
    answer.headers = new HeaderFields(fields)
    this.keepAliveMs = keepAliveHint(answer.headers.get('keep-alive'))
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
    if (this.unkeptSession) this.keepSession()
    if (reusable && !this.unsent && !this.sending) this.client.reuse(this)
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
    this.securing = undefined
    if (this.gone) return
    this.gone = true
    this.client.released()
  }

  destroy(): void {
    if (this.gone) return
    this.gone = true
    this.stopIdleTimer()
    this.wakePump()
    this.client.forget(this)
    this.client.released()
    this.socket.terminate()
  }

  /**
   * Kept idle: closed after `idleMs` unless used again, and neither the timer nor the socket keeps the process alive
   * (a server that stops does not wait for its idle upstream connections).
   */
  sleep(idleMs: number): void {
    // Idle times are few (the config's two, cut by whole seconds of an upstream's Keep-Alive hint): a lane each.
    laneOf(idleMs).add(this)
    this.socket.unref()
  }

  /** Idle for its whole idle time: closed. */
  expire(): void {
    this.destroy()
  }

  /** Taken from the idle ones for a request. */
  wake(): void {
    this.stopIdleTimer()
    this.socket.ref()
  }

  private stopIdleTimer(): void {
    this.lane?.remove(this)
  }

  /** A TLS connection is usable once its handshake ends with the upstream's certificate verified for its host. */
  secured(): Promise<void> {
    this.unkeptSession = true
    return new Promise((resolve, reject) => (this.securing = { resolve, reject }))
  }

  /**
   * Hands this connection's TLS session to the pool, for the next new connection to resume. Taken after the first
   * answer, not at the handshake: TLS 1.3 sends its resumption ticket after the handshake, and by the end of an
   * answer the ticket (sent before it) has been read.
   */
  private keepSession(): void {
    this.unkeptSession = false
    const session = this.socket.getSession() as unknown as Buffer | undefined
    if (session?.byteLength) this.client.keepSession(session)
  }

  handshaken(success: boolean, authorizationError: Error | null): void {
    const securing = this.securing
    this.securing = undefined
    if (success && !authorizationError) {
      if (this.socket.isSessionReused()) this.client.resumedHandshakes++
      return securing?.resolve()
    }
    // Never a request over a connection whose certificate did not verify, whatever the socket's own setting did.
    const reason = (authorizationError as { code?: string } | null)?.code ?? authorizationError?.message ?? 'handshake failed'
    this.client.keepSession(undefined) // the session it offered, if any, is not offered again
    securing?.reject(new ConnectionFailed(`The upstream's TLS certificate was not accepted: ${reason}`))
    this.destroy()
  }

  closed(error: Error | undefined): void {
    const securing = this.securing
    this.securing = undefined
    securing?.reject(new ConnectionFailed(`The connection closed during the TLS handshake${error ? `: ${error.message}` : ''}`))
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
