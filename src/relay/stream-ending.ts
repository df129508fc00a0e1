import type { Outcome } from './types.ts'

/**
 * How a relayed stream's end is told, once, however many ways it ends (read to its end, failed, the client leaving or
 * taking nothing): the first call settles, later ones do nothing. An object per stream, as a closure was.
 */
export class StreamEnding {
  done = false

  constructor(private readonly end: (outcome: Omit<Outcome, 'usage'>) => Promise<void>) {}

  async finish(outcome: Omit<Outcome, 'usage'>): Promise<void> {
    if (this.done) return
    this.done = true
    await this.end(outcome)
  }
}
