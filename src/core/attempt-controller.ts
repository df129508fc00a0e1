/** Told, once, that the attempt it watches was aborted. */
export interface AbortWatcher {
  attemptAborted(reason: unknown): void
}

/**
 * An upstream attempt's AbortController (relay/abort-scope.ts makes one per attempt) that also tells one watcher
 * directly when it aborts: the socket client's answer in progress (providers/http1-answer.ts), which would otherwise
 * add a listener to the signal and remove it again on every request. That listener measured 12% of a saturated
 * whole answer's CPU (bench/compare.ts in turns, 2026-11-28: 240.0 against 271.2 and 245.9 against 279.6 µs), the
 * native listener object it makes included. Its signal is an ordinary AbortSignal for everything else (fetch, sleeps).
 * Like a listener added after the abort, a watcher set after it is not told.
 */
export class AttemptController extends AbortController {
  private watcher: AbortWatcher | undefined

  watch(watcher: AbortWatcher): void {
    this.watcher = watcher
  }

  /** Stop telling `watcher` (its answer is over); another one watching is left as it is. */
  unwatch(watcher: AbortWatcher): void {
    if (this.watcher === watcher) this.watcher = undefined
  }

  override abort(reason?: unknown): void {
    super.abort(reason)
    const watcher = this.watcher
    if (watcher === undefined) return
    this.watcher = undefined
    watcher.attemptAborted(this.signal.reason)
  }
}
