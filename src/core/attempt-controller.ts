/** Told, once, that the attempt it watches was aborted. */
export interface AbortWatcher {
  attemptAborted(reason: unknown): void
}

/**
 * An upstream attempt's abort controller (relay/abort-scope.ts makes one per attempt), as cheap as the usual attempt
 * allows: the socket client's answer in progress (providers/http1-answer.ts) is told directly when it aborts, not
 * through a listener added to a signal and removed on every request; and the native AbortController behind `signal`
 * is made only when something asks for the signal (fetch, a sleep before a retry, a failure's cause), which a request
 * answered over the socket client never does. Per request, that listener measured 12% of a saturated whole answer's
 * CPU (bench/compare.ts in turns, 2026-11-28: 240.0 against 271.2 and 245.9 against 279.6 µs with it left out).
 * Everything else sees an AbortController: `signal` aborts with the same reason, whenever it is first read.
 * Like a listener added after the abort, a watcher set after it is not told.
 */
export class AttemptController implements AbortController {
  private native: AbortController | undefined
  private watcher: AbortWatcher | undefined
  /** Whether it was aborted, and why: the signal's `aborted` and `reason`, without making the signal. */
  aborted = false
  reason: unknown = undefined

  get signal(): AbortSignal {
    if (this.native === undefined) {
      this.native = new AbortController()
      if (this.aborted) this.native.abort(this.reason)
    }
    return this.native.signal
  }

  watch(watcher: AbortWatcher): void {
    this.watcher = watcher
  }

  /** Stop telling `watcher` (its answer is over); another one watching is left as it is. */
  unwatch(watcher: AbortWatcher): void {
    if (this.watcher === watcher) this.watcher = undefined
  }

  /** As AbortController's: the first reason wins (an AbortError DOMException when none is given). */
  abort(reason?: unknown): void {
    if (this.aborted) return
    this.aborted = true
    this.reason = reason === undefined ? new DOMException('This operation was aborted', 'AbortError') : reason
    this.native?.abort(this.reason)
    const watcher = this.watcher
    if (watcher === undefined) return
    this.watcher = undefined
    watcher.attemptAborted(this.reason)
  }
}
