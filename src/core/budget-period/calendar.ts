/**
 * Calendar budget periods: the local day, week or month that contains an instant, as `[start, end)` in epoch
 * milliseconds. Boundaries are the zone's local midnights, so a period is as long as the calendar says (a
 * spring-forward day is 23 hours, February 2024 is 29 days) and resets at the moment a person in that zone would
 * expect — computed from time alone, with no job to run at the boundary.
 */
import { localDateAt, startOfLocalDay, type LocalDate } from './zoned-time.ts'

export type CalendarUnit = 'day' | 'week' | 'month'

/** ISO weekday numbers: 1 is Monday, 7 is Sunday. */
export type Weekday = 1 | 2 | 3 | 4 | 5 | 6 | 7

export interface CalendarOptions {
  /** An IANA zone such as `Europe/Berlin` (checked by parseTimeZone). */
  timeZone: string
  /** The day a week starts on; Monday (ISO 8601) unless set. */
  weekStartsOn?: Weekday
}

export interface PeriodRange {
  start: number
  end: number
}

/**
 * The latest period found per unit, zone and week start. Working one out costs ~40-60 µs of `Intl` formatting, and
 * nearly every request falls in the same period as the one before, so the hot path is a range check. The answer is
 * the same with or without it: a period either contains `now` or is worked out again.
 */
const latest = new Map<string, PeriodRange>()

/** The calendar period of `unit` that contains `now`: `start <= now < end`. */
export function calendarPeriodAt(unit: CalendarUnit, now: number, options: CalendarOptions): PeriodRange {
  const key = `${unit} ${options.timeZone} ${options.weekStartsOn ?? 1}`
  const known = latest.get(key)
  if (known && known.start <= now && now < known.end) return known
  const range = Object.freeze(workOutPeriod(unit, now, options))
  latest.set(key, range)
  return range
}

function workOutPeriod(unit: CalendarUnit, now: number, options: CalendarOptions): PeriodRange {
  const date = localDateAt(options.timeZone, now)
  let range = rangeFrom(unit, date, options, 0)
  // Where clocks go back across midnight, an instant can read as yesterday after today has begun: step to the
  // neighbouring period so that the answer always contains `now`.
  if (now >= range.end) range = rangeFrom(unit, date, options, 1)
  else if (now < range.start) range = rangeFrom(unit, date, options, -1)
  return range
}

/** The period of `unit` holding `date`, or `shift` periods later (negative: earlier). */
function rangeFrom(unit: CalendarUnit, date: LocalDate, options: CalendarOptions, shift: number): PeriodRange {
  const zone = options.timeZone
  if (unit === 'month') {
    const month = date.month + shift
    return { start: startOfLocalDay(zone, date.year, month, 1), end: startOfLocalDay(zone, date.year, month + 1, 1) }
  }
  const length = unit === 'week' ? 7 : 1
  const first = date.day - (unit === 'week' ? daysSinceWeekStart(date, options.weekStartsOn ?? 1) : 0) + shift * length
  return { start: startOfLocalDay(zone, date.year, date.month, first), end: startOfLocalDay(zone, date.year, date.month, first + length) }
}

function daysSinceWeekStart(date: LocalDate, weekStartsOn: Weekday): number {
  const sundayBased = new Date(Date.UTC(date.year, date.month - 1, date.day)).getUTCDay()
  const isoWeekday = sundayBased === 0 ? 7 : sundayBased
  return (isoWeekday - weekStartsOn + 7) % 7
}
