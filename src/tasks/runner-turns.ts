/**
 * How much longer the poll waits while the store has nothing to do (no task open, no item running anywhere): work
 * stored here wakes the runner at once (`onWork`), so an idle poll only looks for work another instance stored and
 * for retention's hour. Polling an idle store four times a second woke the event loop eight times a second, ~0.8 ms
 * of CPU a second on the main thread and as much on the collector's and JIT's threads, whatever the traffic
 * (2026-11-28: idle main thread 2.69 → 2.05 ms/s, all threads 8.3 → 7.1).
 */
const idlePollFactor = 8

/**
 * When the batch runner (runner.ts) takes a turn: one at a time, each in a turn of the event loop of its own, when
 * woken (work stored, an item ended) and at every poll — every `pollMs` while there is batch work anywhere,
 * `idlePollFactor` times less often while the last poll found none. The first turn after a poll sweeps (`turn(true)`).
 */
export class RunnerTurns {
  /** The housekeeping (orphans, expiry, tasks to end, retention) runs once per poll, not on every item's wake. */
  private sweepDue = true
  private quiet = false
  private ticking = false
  private again = false
  private stopped = false
  private timer: ReturnType<typeof setTimeout> | undefined

  constructor(
    private readonly turn: (sweep: boolean) => Promise<void>,
    private readonly onError: (error: unknown) => void,
    private readonly pollMs: number,
  ) {}

  start(): void {
    this.schedulePoll()
    this.wake()
  }

  stop(): void {
    this.stopped = true
    clearTimeout(this.timer)
  }

  /** Work may have come (a task stored here, an item ended): a turn now, and polls at the busy pace again. */
  wake(): void {
    if (this.quiet) {
      this.quiet = false
      this.schedulePoll()
    }
    this.turnSoon()
  }

  /** What a poll's sweep found: nothing to do anywhere (polls slow down until a wake), or work. */
  found(work: boolean): void {
    this.quiet = !work
  }

  private schedulePoll(): void {
    clearTimeout(this.timer)
    if (this.stopped) return
    this.timer = setTimeout(this.poll, this.quiet ? this.pollMs * idlePollFactor : this.pollMs)
    this.timer.unref?.()
  }

  private readonly poll = () => {
    this.sweepDue = true
    this.turnSoon()
    this.schedulePoll()
  }

  private turnSoon(): void {
    if (this.stopped) return
    if (this.ticking) {
      this.again = true
      return
    }
    this.ticking = true
    // A turn of its own, never inside the chain that woke it: on SQLite an item's claim, run and finish resolve without
    // I/O, so a wake from an item's end, run at once, would start the next item in the same turn, and so on through the
    // whole batch (20,000 items refused for money held every tenant for 7.7 s).
    // setImmediate, not a timer: I/O is served between two turns either way, and a timer's extra millisecond per turn
    // made a 20,000-item batch refused for money take 27 s instead of 4.5 s (measured: /healthz p99 under 10 ms both).
    setImmediate(takeTurn, this)
  }

  /** The turn itself (setImmediate's callback). */
  taken(): void {
    const sweep = this.sweepDue
    this.sweepDue = false
    void this.turn(sweep)
      .catch(this.onError)
      .finally(() => {
        this.ticking = false
        if (this.again) {
          this.again = false
          this.turnSoon()
        }
      })
  }
}

function takeTurn(turns: RunnerTurns): void {
  turns.taken()
}
