/** Budget periods: parse them, and find the period (with its identifier and reset time) an instant falls in. */
export { calendarPeriodAt, type CalendarOptions, type CalendarUnit, type PeriodRange, type Weekday } from './calendar.ts'
export { currentPeriod, type CurrentPeriod, type PeriodContext } from './current-period.ts'
export { windowAt, type WindowState } from './fixed-window.ts'
export { formatBudgetPeriod, maxWindowMs, parseBudgetPeriod, parseTimeZone, type BudgetPeriod } from './parse-period.ts'
