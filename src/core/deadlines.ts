/**
 * Deadlines of one length, watched by one timer: a lane. A request's per-request deadlines (its body's, its client
 * watch's, its upstream head's) used to be a `setTimeout` each, set and cleared on every request although almost none
 * ever fires; each was a Timeout object and a native timer-heap insert and removal. A lane keeps its entries in the
 * order they were added, which with one length for all is also the order they fall due, so one timer armed for the
 * first entry's time serves them all: adding and removing are a few field writes, and the timer wakes at most about
 * once per length while entries keep coming (and not at all once the lane is empty).
 *
 * The entries are the objects whose deadline it is (a body read, an abort scope, a head timer), carrying the lane's
 * links themselves: no object is made per deadline.
 */
export interface Deadline {
  /** performance.now() at which `expire` is due; set by the lane. */
  dueAt: number
  /** The lane this entry is in, if any. */
  lane: DeadlineLane | undefined
  laneNext: Deadline | undefined
  lanePrevious: Deadline | undefined
  /** Its time has come (called once, after it was taken out of its lane). */
  expire(): void
}

/**
 * A timer that fires this early is taken as on time: rearming it for a fraction of a millisecond would wake twice.
 * An entry that looks at the clock itself when it expires and adds itself again for a moment this firing still
 * counts as due waits for the next firing (add, `firingUntil`), or it would be expired again at once.
 */
const deadlineToleranceMs = 1

export class DeadlineLane {
  private first: Deadline | undefined
  private last: Deadline | undefined
  private timer: ReturnType<typeof setTimeout> | undefined
  /** When the armed timer fires (performance.now()). */
  private timerAt = 0
  /** While the lane fires: what it counts as due. An entry added meanwhile is due later, so it waits for the next firing. */
  private firingUntil = Number.NEGATIVE_INFINITY

  constructor(readonly delayMs: number) {}

  /**
   * Watch `entry`: its `expire` runs `delayMs` from now unless it is removed first — or at `at`, when that is sooner
   * (a read's idle time cut to its request's total deadline). An entry due sooner than the last is placed by walking
   * back from the end: rare, and short, as entries of one length come in the order they fall due.
   */
  add(entry: Deadline, at?: number): void {
    if (entry.lane) entry.lane.remove(entry)
    const usual = performance.now() + this.delayMs
    const dueAt = Math.max(at !== undefined && at < usual ? at : usual, this.firingUntil + deadlineToleranceMs)
    entry.dueAt = dueAt
    entry.lane = this
    let before = this.last
    while (before !== undefined && before.dueAt > dueAt) before = before.lanePrevious
    const after = before === undefined ? this.first : before.laneNext
    entry.lanePrevious = before
    entry.laneNext = after
    if (before) before.laneNext = entry
    else this.first = entry
    if (after) after.lanePrevious = entry
    else this.last = entry
    // A timer already armed fires no later than this entry's time (an earlier entry's): it rearms itself then. An
    // entry due before the armed time (only one added with `at`) gets the timer moved to it.
    if (this.timer === undefined) this.timer = this.arm(dueAt)
    else if (dueAt < this.timerAt) {
      clearTimeout(this.timer)
      this.timer = this.arm(dueAt)
    }
  }

  /** Stop watching `entry` (nothing happens if it is not in this lane). The timer is left to find the lane emptier. */
  remove(entry: Deadline): void {
    if (entry.lane !== this) return
    const { laneNext: next, lanePrevious: previous } = entry
    if (previous) previous.laneNext = next
    else this.first = next
    if (next) next.lanePrevious = previous
    else this.last = previous
    entry.lane = entry.laneNext = entry.lanePrevious = undefined
  }

  /** The timer fired: expire every entry due, then sleep until the next one's time (or for good, when none is left). */
  fire(): void {
    this.timer = undefined
    const now = performance.now()
    this.firingUntil = now + deadlineToleranceMs
    for (let entry = this.first; entry && entry.dueAt <= this.firingUntil; entry = this.first) {
      this.remove(entry)
      try {
        entry.expire()
      } catch (error) {
        // One entry's failure must not leave the others unwatched; it is reported as an uncaught error would be.
        queueMicrotask(() => {
          throw error
        })
      }
    }
    this.firingUntil = Number.NEGATIVE_INFINITY
    // An entry added while firing may have armed the timer already (add): one timer, for the first entry, stays.
    const first = this.first
    if (first && (this.timer === undefined || first.dueAt < this.timerAt)) {
      clearTimeout(this.timer)
      this.timer = this.arm(first.dueAt)
    }
  }

  /** A timer for `at` (performance.now()). */
  private arm(at: number): ReturnType<typeof setTimeout> {
    this.timerAt = at
    const timer = setTimeout(fireLane, Math.max(0, at - performance.now()), this)
    // The lane never keeps a process alive by itself: its entries belong to requests, which the server does.
    timer.unref()
    return timer
  }
}

function fireLane(lane: DeadlineLane): void {
  lane.fire()
}

const lanes = new Map<number, DeadlineLane>()

/**
 * The lane of deadlines `delayMs` long, shared by every caller in the process. Lengths come from the config (a few per
 * process, each a lane kept for good), never from a computation: a length that varies would make a lane per value.
 */
export function laneOf(delayMs: number): DeadlineLane {
  let lane = lanes.get(delayMs)
  if (!lane) lanes.set(delayMs, (lane = new DeadlineLane(delayMs)))
  return lane
}
