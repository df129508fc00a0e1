/**
 * Something that is due at a time (performance.now() ms): it is its own node in a DueList, so waiting costs it two
 * link fields, not a timer of its own.
 */
export interface Due {
  /** When `due()` is to run; 0 while not in a list. */
  dueAt: number
  dueBefore: Due | undefined
  dueAfter: Due | undefined
  /** The time has come (the node has left the list; it may add itself again). */
  due(): void
}

/**
 * Many waits, one timer: the nodes are kept in the order they are due, and one timer is set for the first. Each
 * streamed upstream body waits for its next chunk under idle_ms for as long as it is open; a Bun timer each was a
 * `Timeout` object of ~180 bytes and a native timer per open stream (bench/idle-census.ts), where a node here costs
 * two fields of an object the stream keeps anyway. Adding and removing cost O(1) when, as usual, a node is due no
 * sooner than the last one (waits of one length, added in time order); an earlier one is placed by walking back.
 */
export class DueList {
  private first: Due | undefined
  private last: Due | undefined
  private timer: ReturnType<typeof setTimeout> | undefined
  /** When the timer fires (0: no timer). */
  private timerAt = 0

  /** Wait until `at` (a node already waiting is moved). */
  add(node: Due, at: number): void {
    if (node.dueAt !== 0) this.remove(node)
    node.dueAt = at
    let before = this.last
    while (before !== undefined && before.dueAt > at) before = before.dueBefore
    node.dueBefore = before
    node.dueAfter = before === undefined ? this.first : before.dueAfter
    if (node.dueAfter === undefined) this.last = node
    else node.dueAfter.dueBefore = node
    if (before === undefined) this.first = node
    else before.dueAfter = node
    if (this.first === node) this.arm()
  }

  /** Stop waiting (nothing when the node is not in the list). */
  remove(node: Due): void {
    if (node.dueAt === 0) return
    const { dueBefore: before, dueAfter: after } = node
    if (before === undefined) this.first = after
    else before.dueAfter = after
    if (after === undefined) this.last = before
    else after.dueBefore = before
    node.dueAt = 0
    node.dueBefore = node.dueAfter = undefined
    // The timer is left as it is while anything waits (when it fires it finds what is due then, and is set again for
    // what is left); with nothing left it goes, as each wait's own timer did, so an idle process holds no timer (a
    // shutdown ends once its work is done, not when a stale timer fires).
    if (this.first === undefined && this.timer !== undefined) {
      clearTimeout(this.timer)
      this.timer = undefined
      this.timerAt = 0
    }
  }

  /** The timer fired: run every node that is due, then set the timer for the next one. */
  fire(): void {
    this.timer = undefined
    this.timerAt = 0
    const now = performance.now()
    for (let node = this.first; node !== undefined && node.dueAt <= now; node = this.first) {
      this.remove(node)
      node.due()
    }
    this.arm()
  }

  private arm(): void {
    const first = this.first
    if (first === undefined || (this.timer !== undefined && this.timerAt <= first.dueAt)) return
    clearTimeout(this.timer)
    this.timerAt = first.dueAt
    this.timer = setTimeout(fireList, Math.max(0, first.dueAt - performance.now()), this)
  }
}

function fireList(list: DueList): void {
  list.fire()
}
