import type { ProviderConfig } from '../config/types.ts'
import { clientClosed, GatewayError } from '../core/errors.ts'
import type { BodyChunks, ChunkSink } from '../core/provider.ts'
import { type Deadline, type DeadlineLane, laneOf } from '../core/deadlines.ts'
import { isBug } from '../core/background-failures.ts'
import { RequestBodyFailed } from './http1-answer.ts'

/**
 * Reading an upstream's body under the attempt's timers (idle_ms between chunks, total_ms in all) and within the
 * caps (`limits.upstream_body_bytes`, `upstream_error_bytes`): the readers http.ts uses for whole answers, streams
 * and refusals.
 */

/**
 * When each response's attempt must be over (performance.now() ms), for the body readers below. Keyed by the
 * Response, not its body: touching `.body` would turn every answer into a JS stream and lose Bun's native `text()`.
 */
const deadlines = new WeakMap<Response, number>()

/** The total_ms deadline of the attempt that fetched `response` (unbounded for a response not fetched here). */
export function attemptDeadline(response: Response): number {
  return deadlines.get(response) ?? Number.POSITIVE_INFINITY
}

/** Remember when the attempt that fetched `response` must be over (fetchUpstream, once the head is in). */
export function setAttemptDeadline(response: Response, deadline: number): void {
  deadlines.set(response, deadline)
}

/** Map a thrown fetch or body-read error to what the client should see. */
export function upstreamFailure(provider: ProviderConfig, error: unknown, signal: AbortSignal): GatewayError {
  if (error instanceof GatewayError) return error
  if (signal.aborted) {
    // Our own timers and the relay abort with a GatewayError; anything else is the client going away.
    if (signal.reason instanceof GatewayError) return signal.reason
    return clientClosed()
  }
  if (isOwnBug(error) || error instanceof RequestBodyFailed) {
    return new GatewayError('internal', `Tollgate failed while talking to upstream ${provider.name}`, { cause: error })
  }
  return new GatewayError('upstream_unavailable', `Upstream ${provider.name} could not be reached or closed the connection`, {
    code: 'upstream_unreachable',
  })
}

/**
 * A TypeError, RangeError… that no network failure explains: a bug in our code on the way (the socket client's
 * parser, say), which must reach the log with its stack (reportFailure logs `internal` errors once) rather than pass
 * as an unreachable upstream. fetch's own network failures are TypeErrors too, but each carries a `code`
 * (ECONNREFUSED, ECONNRESET, ZlibError, Malformed_HTTP_Response…); the socket client's are ConnectionFailed.
 */
function isOwnBug(error: unknown): boolean {
  return isBug(error) && (error as { code?: unknown }).code === undefined
}

/** The error for a body that stopped short of the attempt's total deadline, or ran into it. */
function bodyTimeout(provider: ProviderConfig, pastDeadline: boolean): GatewayError {
  const { idleMs, totalMs } = provider.timeouts
  return pastDeadline
    ? new GatewayError('timeout', `Upstream ${provider.name} did not finish within ${totalMs} ms`, { code: 'total_timeout' })
    : new GatewayError('timeout', `Upstream ${provider.name} went quiet for ${idleMs} ms mid-answer`, { code: 'idle_timeout' })
}

/**
 * A timer that ends the attempt when the next body read takes longer than idle_ms (cut to the total deadline).
 * Aborting the attempt makes the pending read reject, so no read is raced against a timeout promise: that cost a
 * promise, a closure and a race per read on the hot path.
 */
export function watchRead(provider: ProviderConfig, attempt: AbortController, deadline: number): ReturnType<typeof setTimeout> {
  const { idleMs } = provider.timeouts
  const left = deadline - performance.now()
  return setTimeout(endRead, Math.max(0, Math.min(idleMs, left)), provider, attempt, left < idleMs)
}

/** watchRead's timer fired (its arguments passed through setTimeout: no closure per read). */
function endRead(provider: ProviderConfig, attempt: AbortController, pastDeadline: boolean): void {
  attempt.abort(bodyTimeout(provider, pastDeadline))
}

/** What a body is read through: a ReadableStream's reader, or an answer of the socket client (which can also pipe). */
export interface BodyReader {
  read(): Promise<Bun.ReadableStreamDefaultReadResult<Uint8Array>>
  cancel(): Promise<unknown> | void
  pipe?(sink: ChunkSink): void
}

/**
 * A streamed body's chunks, read under the attempt's timers: a read that waits longer than idle_ms for its chunk, or
 * runs past the total deadline, ends the attempt with a timeout error instead of hanging the client forever.
 *
 * No timer per chunk: the body waits in its idle_ms lane (one timer for every open body, core/deadlines.ts) until the earliest
 * moment the read in progress could be too late, and then looks at when that read began, so a chunk that comes in
 * time costs a clock reading instead of setting and clearing a timer (a long stream's chunks come every few
 * milliseconds, for minutes), and an open stream keeps no timer of its own. Between reads — the client is slow to
 * take the last chunk — no silence is counted.
 */
export class UpstreamChunks implements BodyChunks, Deadline {
  /** performance.now() when the read in progress began; 0 when none is. */
  readSince = 0
  readonly idleMs: number
  dueAt = 0
  lane: DeadlineLane | undefined = undefined
  laneNext: Deadline | undefined = undefined
  lanePrevious: Deadline | undefined = undefined

  /** `reader`: a fetched body's reader, or an answer of the socket client (providers/http1-client.ts). */
  constructor(
    private readonly reader: BodyReader,
    readonly provider: ProviderConfig,
    readonly attempt: AbortController,
    readonly deadline: number,
  ) {
    this.idleMs = provider.timeouts.idleMs
  }

  read(): Promise<Bun.ReadableStreamDefaultReadResult<Uint8Array>> {
    this.watchFrom(performance.now())
    return this.reader.read()
  }

  /** The read's outcome, with the watch told that no read is in progress. */
  took(result: Bun.ReadableStreamDefaultReadResult<Uint8Array>): Bun.ReadableStreamDefaultReadResult<Uint8Array> {
    if (result.done) this.stopWatch()
    else this.readSince = 0
    return result
  }

  /**
   * The body piped to `sink` (the socket client's answers can): each piece in the socket's own callback. The idle
   * watch counts silence while the sink takes pieces as they come, and none while it is full (the client is slow, as
   * between two reads). A failure reaches the sink as what the client should see.
   */
  pipeTo(sink: ChunkSink): boolean {
    const { reader } = this
    if (reader.pipe === undefined) return false
    let over = false // ended or failed: a sink that drains afterwards starts no watch
    this.watchFrom(performance.now())
    reader.pipe({
      chunk: (bytes) => {
        const full = sink.chunk(bytes)
        if (full === undefined) {
          this.readSince = performance.now()
          return
        }
        this.readSince = 0
        return full.finally(() => {
          if (!over) this.watchFrom(performance.now())
        })
      },
      end: () => {
        over = true
        this.stopWatch()
        sink.end()
      },
      fail: (error) => {
        over = true
        this.stopWatch()
        sink.fail(upstreamFailure(this.provider, error, this.attempt.signal))
      },
    })
    return true
  }

  /** A read (or a pipe's wait for its next piece) in progress since `since`, watched in its idle_ms lane. */
  private watchFrom(since: number): void {
    this.readSince = since
    if (this.lane === undefined) laneOf(this.idleMs).add(this, this.deadline)
  }

  failure(error: unknown): unknown {
    const reading = this.readSince !== 0
    this.stopWatch()
    return reading ? upstreamFailure(this.provider, error, this.attempt.signal) : error
  }

  /** Stop reading: the rest of the body is not wanted (the upstream connection is released). */
  cancel(): void {
    this.stopWatch()
    void Promise.resolve(this.reader.cancel()).catch(() => {})
  }

  private stopWatch(): void {
    this.readSince = 0
    this.lane?.remove(this)
  }

  /** The earliest moment the read in progress could be too late has come: end it if it is, else wait again. */
  expire(): void {
    if (this.readSince === 0) return // no read in progress: the next one waits again
    const now = performance.now()
    const pastDeadline = now >= this.deadline
    if (pastDeadline || now - this.readSince >= this.idleMs) {
      this.attempt.abort(bodyTimeout(this.provider, pastDeadline))
      return
    }
    laneOf(this.idleMs).add(this, Math.min(this.readSince + this.idleMs, this.deadline))
  }
}

/**
 * A whole (non-streamed) body as text, at most `caps.bodyBytes` of it (a larger one is a 502 `upstream_malformed`).
 * Its bytes follow the head at once, so the body as a whole gets idle_ms (cut to the total deadline) instead of a
 * timer per chunk: one native read per request when its length is declared and within the cap (the usual case), and
 * a body that stalls still ends the attempt. A body of unknown length is read chunk by chunk and counted.
 *
 * A declared body that came with its head (the usual small answer) is Bun's already: its `text()` is settled at once,
 * and is returned as it is, without a timer, a promise or an async frame.
 */
export function readBodyText(response: Response, provider: ProviderConfig, attempt: AbortController): string | Promise<string> {
  const cap = provider.caps.bodyBytes
  const declared = response.headers.get('content-length')
  if (declared !== null && Number(declared) > cap) {
    void response.body?.cancel().catch(() => {})
    throw bodyTooLarge(provider, cap)
  }
  if (declared === null) return readUndeclared(response, provider, attempt, cap)
  const text = response.text()
  if (Bun.peek.status(text) === 'fulfilled') return Bun.peek(text) as string
  return readWatched(text, provider, attempt, attemptDeadline(response))
}

/** A declared body still coming: awaited under the idle timer. */
async function readWatched(text: Promise<string>, provider: ProviderConfig, attempt: AbortController, deadline: number): Promise<string> {
  const timer = watchRead(provider, attempt, deadline)
  try {
    return await text
  } catch (error) {
    throw upstreamFailure(provider, error, attempt.signal)
  } finally {
    clearTimeout(timer)
  }
}

/** A body of unknown length: read chunk by chunk and counted, under the idle timer. */
async function readUndeclared(response: Response, provider: ProviderConfig, attempt: AbortController, cap: number): Promise<string> {
  const timer = watchRead(provider, attempt, attemptDeadline(response))
  try {
    const text = await readCapped(response, cap)
    if (text === undefined) throw bodyTooLarge(provider, cap)
    return text
  } catch (error) {
    throw upstreamFailure(provider, error, attempt.signal)
  } finally {
    clearTimeout(timer)
  }
}

export function bodyTooLarge(provider: ProviderConfig, cap: number): GatewayError {
  return new GatewayError('upstream', `Upstream ${provider.name} sent a body larger than ${cap} bytes`, { code: 'upstream_malformed' })
}

/**
 * The body's first `cap` bytes as text; `undefined` when there was more (unless `truncate`, which keeps the first
 * `cap` bytes and discards the rest). The read stops at the cap: the rest is never taken from the upstream.
 */
async function readCapped(response: Response, cap: number, truncate = false): Promise<string | undefined> {
  if (!response.body) return ''
  return readCappedFrom(response.body.getReader(), cap, truncate)
}

/** readCapped's reading, from any body reader. */
export async function readCappedFrom(reader: BodyReader, cap: number, truncate = false): Promise<string | undefined> {
  const parts: Uint8Array[] = []
  let size = 0
  try {
    while (true) {
      const { done, value } = await reader.read()
      if (done) break
      if (size + value.byteLength > cap) {
        if (!truncate) return undefined
        parts.push(value.subarray(0, cap - size))
        size = cap
        break
      }
      parts.push(value)
      size += value.byteLength
    }
  } finally {
    // The socket client's answer cancels synchronously (and, read to its end, does nothing); a stream's returns a promise.
    reader.cancel()?.catch(() => {})
  }
  return textOf(parts, size)
}

/** A whole body's pieces (`size` bytes in all) as text. */
export function textOf(parts: Uint8Array[], size: number): string {
  return bodyText.decode(parts.length === 1 ? parts[0] : Buffer.concat(parts, size))
}

/** One decoder for every whole body: `decode` without `stream` keeps no state between calls (a BOM is dropped). */
const bodyText = new TextDecoder()

/** A whole upstream body as JSON, or a 502 naming the provider. */
export function parseUpstreamJson(text: string, config: ProviderConfig): unknown {
  try {
    return JSON.parse(text)
  } catch {
    throw new GatewayError('upstream', `Upstream ${config.name} sent a response that is not JSON`, { code: 'upstream_malformed' })
  }
}
