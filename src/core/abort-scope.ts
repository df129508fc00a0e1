import { clientClosed, type GatewayError } from './errors.ts'

const once = { once: true }

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
 * 2026-11-23). This costs one controller per attempt and one listener, on the request's own signal.
 */
export class AbortScope {
  /** Why the request was ended: a 499 `client_closed` error, or the shutdown's error. First reason wins. */
  reason: GatewayError | undefined
  private current: AbortController | undefined

  /** A scope that ends when Bun aborts the request's signal (its connection closed). */
  static of(request: Request): AbortScope {
    const scope = new AbortScope()
    const signal = request.signal
    if (signal.aborted) scope.end(clientClosed())
    else signal.addEventListener('abort', scope, once) // the scope itself listens (handleEvent): no closure per request
    return scope
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

  /** End the request: abort what is in progress, and every attempt after it, with `reason`. */
  end(reason: GatewayError = clientClosed()): void {
    if (this.reason) return
    this.reason = reason
    this.current?.abort(reason)
  }

  /** The controller of the next attempt (or wait); it replaces the previous one as the one in progress. */
  attempt(): AbortController {
    const controller = new AbortController()
    if (this.reason) controller.abort(this.reason)
    this.current = controller
    return controller
  }
}
