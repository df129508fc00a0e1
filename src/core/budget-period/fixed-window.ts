/**
 * Fixed-length budget windows (`5h`, `30m`, `7d`), as coding assistants' usage windows work: a window opens with
 * the first request after the previous window has ended, not on a clock boundary, so a key idle for a week starts
 * a fresh window when it is next used. The window's start is recorded by the caller (the ledger); this module only
 * decides, from that record and `now`, whether the window is still open or a new one begins.
 */
import type { PeriodRange } from './calendar.ts'

export interface WindowState extends PeriodRange {
  /** True when `now` opens a new window: the caller records `start` (once, atomically, across instances). */
  opened: boolean
}

/**
 * The window a request at `now` counts against. `recordedStart` is the start of the latest window on record, or
 * undefined when none was ever opened. A recorded start slightly in the future (another instance's clock running
 * ahead) still counts as open, so two instances do not keep opening windows over each other.
 */
export function windowAt(lengthMs: number, recordedStart: number | undefined, now: number): WindowState {
  if (recordedStart !== undefined && now < recordedStart + lengthMs) {
    return { start: recordedStart, end: recordedStart + lengthMs, opened: false }
  }
  return { start: now, end: now + lengthMs, opened: true }
}
