import { AttemptController } from '../core/attempt-controller.ts'
import { type Deadline, type DeadlineLane, laneOf } from '../core/deadlines.ts'
import { clientClosed, type GatewayError } from '../core/errors.ts'

const once = { once: true }

/** What runs once a request is over: an object with a method, not a closure, so an open stream keeps no scope for it. */
export interface AfterClose {
  afterClose(): void
}

/**
 * How long a request may wait on its upstream before the scope starts listening for the client leaving. An answer
 * that comes sooner never touches `request.signal`: that listener, on top of the attempt's own signal on the upstream
 * fetch, measured 3-5 µs of CPU per request (bench/compare.ts, 2026-11-23), and most requests that matter here (a
 * model generating for seconds) are still waiting when it is added. A client that left earlier is seen then: Bun
 * gives a signal first read after the disconnect already aborted. The price: an answer that is complete within
 * this delay is billed as answered even if its client hung up meanwhile — the upstream did all of that work.
 */
export const clientWatchDelayMs = 100

/**
 * Everything that can end one request early, and the one place that ends it: the client leaving (its connection
 * closing, or it cancelling a streamed answer) or the gateway shutting down past its drain deadline.
 *
 * Each upstream attempt, and each wait before a retry, takes its own AbortController from `attempt()`; ending the
 * request aborts the one in progress with the reason, and a later one is born aborted. Lower layers (a provider's
 * timers) abort the same controller with their own reason, so no layer links a controller of its own.
 *
 * Why this and not signals linked layer by layer (or AbortSignal.any): three controllers and three listeners per
 * request measured ~6 µs of main-thread CPU, a tenth of the gateway's own cost (profile of bench/tollgate.ts,
 * 2026-11-23). This costs one controller per attempt, and for a request still running after `clientWatchDelayMs` one
 * listener on the request's own signal. The delay is the scope's own entry in a shared lane (core/deadlines.ts),
 * not a timer per request.
 */
export class AbortScope implements Deadline {
  /** Why the request was ended: a 499 `client_closed` error, or the shutdown's error. First reason wins. */
  reason: GatewayError | undefined
  private current: AttemptController | undefined

  /** The request whose client is watched, until the watch has begun (or the request is over). */
  private request: Request | undefined
  /** A client leaving does not stop the attempt in progress (readOnAfterClientLeaves). */
  private readOn = false
  dueAt = 0
  lane: DeadlineLane | undefined
  laneNext: Deadline | undefined
  lanePrevious: Deadline | undefined

  /** A scope that ends when Bun aborts the request's signal (its connection closed), watched from clientWatchDelayMs on. */
  static of(request: Request): AbortScope {
    const scope = new AbortScope()
    scope.request = request
    watchLane.add(scope)
    return scope
  }

  /** Told once the request is over (set by the front for a streamed answer, whose end only the relay sees). */
  afterClose: AfterClose | undefined

  /** The request is over: stop watching its client (the relay calls this once the request has settled). */
  close(): void {
    this.lane?.remove(this)
    this.request = undefined
    const after = this.afterClose
    this.afterClose = undefined
    after?.afterClose()
  }

  /** The request is still running after clientWatchDelayMs: listen for its client leaving (or see it already gone). */
  expire(): void {
    const request = this.request
    this.request = undefined
    if (!request) return
    const signal = request.signal
    if (signal.aborted) this.end(clientClosed())
    else signal.addEventListener('abort', this, once) // the scope itself listens (handleEvent): no closure per request
  }

  /** The request's signal fired: its connection closed. */
  handleEvent(): void {
    this.end(clientClosed())
  }

  get ended(): boolean {
    return this.reason !== undefined
  }

  /** The client went away (rather than the gateway stopping). */
  get clientGone(): boolean {
    return this.reason?.code === 'client_closed'
  }

  /**
   * A reasoning answer's hidden tokens are reported only at its end: were the upstream stopped when the client
   * leaves, the bill could only be the visible text's estimate. So for such a request the attempt in progress reads
   * on to the upstream's usage report (bounded by its own timers and the hold); no new attempt starts.
   */
  readOnAfterClientLeaves(): void {
    this.readOn = true
  }

  /** The client has left and the attempt in progress reads on to its end, for the bill. */
  get readsOn(): boolean {
    return this.readOn && this.clientGone
  }

  /** End the request: abort what is in progress, and every attempt after it, with `reason`. */
  end(reason: GatewayError = clientClosed()): void {
    const readingOn = this.readOn && reason.code === 'client_closed'
    if (this.reason) {
      // A request reading on after its client left is still ended by a shutdown past its deadline.
      if (this.readsOn && !readingOn) this.current?.abort(reason)
      return
    }
    this.reason = reason
    if (!readingOn) this.current?.abort(reason)
  }

  /** The controller of the next attempt (or wait); it replaces the previous one as the one in progress. */
  attempt(): AttemptController {
    const controller = new AttemptController()
    if (this.reason) controller.abort(this.reason)
    this.current = controller
    return controller
  }
}

const watchLane = laneOf(clientWatchDelayMs)
