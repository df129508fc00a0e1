/**
 * Long work on the one event loop every tenant shares (parsing an upload, checking a batch's lines, a chain of batch
 * items that resolves without I/O on SQLite) hands the loop back often, so /healthz and every other request in flight
 * carry on. A timer rather than setImmediate, so that timers (the upstream timeouts among them) get their turn too;
 * a yield costs about a millisecond, so work yields only once it has held the loop for its budget.
 */
function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0))
}

/** The longest a paced loop holds the event loop between two yields. */
export const sliceMs = 5

/** One run of paced work: `pace()` between steps yields once the run has held the loop for `budgetMs`. */
export class Pacer {
  private since = performance.now()

  constructor(private readonly budgetMs = sliceMs) {}

  /** Has this run held the loop for its budget? (A caller with no promise to spare checks before `pace()`.) */
  due(): boolean {
    return performance.now() - this.since >= this.budgetMs
  }

  async pace(): Promise<void> {
    if (!this.due()) return
    await yieldToLoop()
    this.since = performance.now()
  }
}
