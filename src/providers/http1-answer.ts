import type { ChunkSink } from '../core/provider.ts'
import type { HeaderFields } from '../core/http1-head.ts'
import { type AbortWatcher, AttemptController } from '../core/attempt-controller.ts'

/** What an answer asks of the connection it is read from (http1-client.ts). */
export interface AnswerConnection {
  pause(): void
  resume(): void
  /** Give up the answer in progress: the connection closes. */
  abandon(reason: unknown): void
}

/** The connection failed or closed before its answer was complete (refused, reset, cut). */
export class ConnectionFailed extends Error {
  override readonly name = 'ConnectionFailed'
}

/**
 * The request's own body failed to read while it was written (a spooled upload's file that shrank or went away): a
 * fault on our side, not the upstream's, so it is not mistaken for an unreachable upstream.
 */
export class RequestBodyFailed extends Error {
  override readonly name = 'RequestBodyFailed'
}

type ReadResult = { done: false; value: Uint8Array } | { done: true; value: undefined }
const doneResult: ReadResult = { done: true, value: undefined }

/** Where `Http1Answer.pipe` hands a body as it arrives. */
export type BodySink = ChunkSink

/**
 * An answer whose head has come. Its body is read with `read` (a promise a piece) or `text` (whole), or handed as it
 * arrives, in the socket's own callback, to a sink (`pipe`): a relay writes each piece on at once, without a promise
 * a chunk — which is most of what reading a stream in JS costs (bench/socket-proxy.ts: 1.01× the native pipe's CPU a
 * chunk piped, 1.21× read a promise at a time).
 */
export class Http1Answer implements AbortWatcher {
  status = 0
  headers!: HeaderFields
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
    private readonly connection: AnswerConnection,
    private readonly highWaterBytes: number,
    private readonly abort: AbortSignal | AttemptController | undefined,
  ) {
    // An attempt's controller tells the answer itself: no listener added and removed per request (attempt-controller.ts).
    if (abort instanceof AttemptController) abort.watch(this)
    else abort?.addEventListener('abort', this, { once: true })
  }

  get ok(): boolean {
    return this.status >= 200 && this.status < 300
  }

  /** The signal was aborted: the answer fails with its reason and the connection closes. */
  handleEvent(): void {
    this.attemptAborted((this.abort as AbortSignal).reason)
  }

  attemptAborted(reason: unknown): void {
    if (!this.finished) this.connection.abandon(reason)
  }

  /** The answer is over: nothing to abort any more. */
  private unwatch(): void {
    const { abort } = this
    if (abort instanceof AttemptController) abort.unwatch(this)
    else abort?.removeEventListener('abort', this)
  }

  /** The next piece of the body, or done. Rejects when the connection failed, or the signal aborted, first. */
  read(): Promise<ReadResult> {
    const next = this.queue.shift()
    if (next !== undefined) {
      this.queuedBytes -= next.byteLength
      if (this.paused && this.queuedBytes <= this.highWaterBytes / 2) {
        this.paused = false
        this.connection.resume()
      }
      return Promise.resolve({ done: false, value: next })
    }
    if (this.failure !== undefined) return Promise.reject(this.failure)
    if (this.finished) return Promise.resolve(doneResult)
    return new Promise<ReadResult>((resolve, reject) => (this.waiter = { resolve, reject }))
  }

  /**
   * The whole body's pieces when all of it has already arrived — the usual small answer, which comes with its head —
   * taken at once, without a read, a promise or a timer; else undefined, and nothing is taken.
   */
  takeArrived(): Uint8Array[] | undefined {
    if (!this.finished || this.failure !== undefined || this.sink !== undefined) return undefined
    const pieces = this.queue.splice(0)
    this.queuedBytes = 0
    return pieces
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
    if (!this.paused && this.queuedBytes > this.highWaterBytes) {
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
    this.unwatch()
    this.sink?.end()
    this.waiter?.resolve(doneResult)
    this.waiter = undefined
  }

  failed(error: unknown): void {
    this.finished = true
    this.failure = error
    this.unwatch()
    this.sink?.fail(error)
    this.waiter?.reject(error)
    this.waiter = undefined
  }
}
