/**
 * Wall-clock arithmetic in an IANA time zone, from nothing but `Intl.DateTimeFormat`: the offset a zone has at an
 * instant, the local date of an instant, and the instant a local day starts. Budget periods reset at local
 * midnight, and a local day is not always 24 hours: spring-forward days are 23 h (Lord Howe's 23.5 h), fall-back
 * days 25 h, and where clocks change at midnight (America/Santiago, America/Havana) a day may have no 00:00 at all.
 * No I/O and no clock reads: every function takes the instant it is about.
 */
import { dayMs } from '../time.ts'

export interface LocalDate {
  year: number
  /** 1 to 12. */
  month: number
  day: number
}

const formatters = new Map<string, Intl.DateTimeFormat>()

/** One formatter per zone: building one costs far more than using it (~2 µs a call). */
function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone)
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      era: 'short',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    })
    formatters.set(timeZone, formatter)
  }
  return formatter
}

/** The zone's wall clock at `instant`, written as epoch milliseconds as if that wall clock were UTC. */
function wallClockAt(timeZone: string, instant: number): number {
  const fields: Record<string, string> = {}
  for (const part of formatterFor(timeZone).formatToParts(instant)) fields[part.type] = part.value
  const year = fields.era === 'BC' ? 1 - Number(fields.year) : Number(fields.year)
  // Some engines print midnight as 24 even with h23; it is the start of the same day either way.
  const hour = Number(fields.hour) % 24
  const wholeSeconds = utcFromFields(year, Number(fields.month), Number(fields.day), hour, Number(fields.minute), Number(fields.second))
  return wholeSeconds + (instant - Math.floor(instant / 1000) * 1000)
}

/** The zone's offset from UTC at `instant`, in milliseconds (Berlin in summer: 7,200,000). */
export function offsetAt(timeZone: string, instant: number): number {
  return wallClockAt(timeZone, instant) - instant
}

/** The local calendar date at `instant` in the zone. */
export function localDateAt(timeZone: string, instant: number): LocalDate {
  const wall = new Date(wallClockAt(timeZone, instant))
  return { year: wall.getUTCFullYear(), month: wall.getUTCMonth() + 1, day: wall.getUTCDate() }
}

/**
 * The first instant of a local day. Days and months out of range roll over as `Date.UTC` rolls them (day 32 of
 * January is February 1st; day 0 is the last day of the month before), so callers can step without calendars.
 * When midnight happens twice (clocks set back at 01:00 to 00:00) the day starts at the first; when it does not
 * happen at all (clocks jump from 00:00 to 01:00) the day starts at the jump.
 */
export function startOfLocalDay(timeZone: string, year: number, month: number, day: number): number {
  const midnight = utcFromFields(year, month, day, 0, 0, 0)
  // The offsets a day around midnight cover every offset midnight can have (zones change at most once a day).
  const before = offsetAt(timeZone, midnight - dayMs)
  const after = offsetAt(timeZone, midnight + dayMs)
  let earliest = Number.POSITIVE_INFINITY
  for (const offset of new Set([before, offsetAt(timeZone, midnight), after])) {
    const instant = midnight - offset
    if (instant < earliest && offsetAt(timeZone, instant) === offset) earliest = instant
  }
  if (earliest !== Number.POSITIVE_INFINITY) return earliest
  return firstInstantReaching(timeZone, midnight, midnight - after, midnight - before)
}

/**
 * In a gap (midnight skipped), the first instant in `[low, high]` whose wall clock reads `wall` or later: the moment
 * the clocks jump. Transitions fall on whole seconds, so the search runs over seconds (about 12 steps for an hour).
 */
function firstInstantReaching(timeZone: string, wall: number, low: number, high: number): number {
  let lowSecond = Math.floor(low / 1000)
  let highSecond = Math.ceil(high / 1000)
  while (lowSecond < highSecond) {
    const middle = Math.floor((lowSecond + highSecond) / 2)
    if (wallClockAt(timeZone, middle * 1000) >= wall) highSecond = middle
    else lowSecond = middle + 1
  }
  return highSecond * 1000
}

/** `Date.UTC` without its quirk of reading years 0 to 99 as 1900 to 1999. */
function utcFromFields(year: number, month: number, day: number, hour: number, minute: number, second: number): number {
  const date = new Date(0)
  date.setUTCFullYear(year, month - 1, day)
  date.setUTCHours(hour, minute, second, 0)
  return date.getTime()
}
