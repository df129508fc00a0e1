/**
 * The period a request counts against, for any kind of budget period, with a stable identifier. The identifier is
 * the period's start in epoch milliseconds (0 for `total`): the ledger keys a budget's spent figure by it, and a
 * hold records the identifier it was admitted under, so a request held across a boundary settles against the
 * period it was admitted in while the next period starts again at zero. Identifiers are unique per budget, not
 * across budgets: a day and a month starting at the same midnight share one, so the key is (budget, identifier).
 */
import { calendarPeriodAt, type CalendarOptions } from './calendar.ts'
import { windowAt } from './fixed-window.ts'
import type { BudgetPeriod } from './parse-period.ts'

export interface PeriodContext extends CalendarOptions {
  /** For a fixed window: the start of the budget's latest window on record (undefined if none yet). */
  windowStart?: number
}

export interface CurrentPeriod {
  /** The database key of this period of the budget. */
  id: number
  start: number
  /** When the spent figure starts again at zero; undefined for `total`, which never resets. */
  resetsAt: number | undefined
  /** A fixed window opened by this request: the caller records its start. */
  opened: boolean
}

export function currentPeriod(period: BudgetPeriod, now: number, context: PeriodContext): CurrentPeriod {
  if (period.kind === 'total') return { id: 0, start: 0, resetsAt: undefined, opened: false }
  const range =
    period.kind === 'calendar'
      ? { ...calendarPeriodAt(period.unit, now, context), opened: false }
      : windowAt(period.lengthMs, context.windowStart, now)
  return { id: range.start, start: range.start, resetsAt: range.end, opened: range.opened }
}
