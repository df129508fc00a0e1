import type { Outcome } from './types.ts'

/**
 * How a relayed stream's end is told, once, however many ways it ends (read to its end, failed, the client leaving or
 * taking nothing): the first `finish` settles, later ones do nothing. The stream's own attempt is its ending
 * (attempt.ts), so an open stream keeps no object, closure or scope of its own for it.
 */
export interface StreamEnding {
  /** The stream's end has been told. */
  readonly done: boolean
  finish(outcome: Omit<Outcome, 'usage'>): Promise<void>
}
