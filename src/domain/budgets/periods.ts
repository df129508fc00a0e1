import { type BudgetPeriod, type CurrentPeriod, currentPeriod, parseBudgetPeriod } from '../../core/budget-period/index.ts'
import type { BudgetRecord } from '../records.ts'

const parsed = new Map<string, BudgetPeriod>()

/** A budget's period as written (`month`, `5h`), parsed once per text (stored periods were checked when written). */
export function periodOfText(text: string): BudgetPeriod {
  let period = parsed.get(text)
  if (!period) parsed.set(text, (period = parseBudgetPeriod(text)))
  return period
}

/** The period of a budget at `now`; a fixed window needs its latest start on record (`windowStart`). */
export function periodNow(budget: Pick<BudgetRecord, 'period' | 'timeZone'>, now: number, windowStart: number | undefined): CurrentPeriod {
  return currentPeriod(periodOfText(budget.period), now, { timeZone: budget.timeZone, windowStart })
}
