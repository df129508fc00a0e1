import { describe, expect, test } from 'bun:test'
import { calendarPeriodAt, type CalendarUnit } from './calendar.ts'
import { localDateAt, startOfLocalDay } from './zoned-time.ts'

const at = (iso: string) => Date.parse(iso)
const hours = (range: { start: number; end: number }) => (range.end - range.start) / 3_600_000
const iso = (ms: number) => new Date(ms).toISOString()
const day = (zone: string, now: string, weekStartsOn?: 1 | 7) => calendarPeriodAt('day', at(now), { timeZone: zone, weekStartsOn })

/** Expected instants were checked against the system's tz database with `TZ=zone date -u -d 'TZ="zone" day 00:00'`. */
describe('calendar days across clock changes', () => {
  test('New York: spring forward is a 23-hour day, fall back a 25-hour day', () => {
    const spring = day('America/New_York', '2024-03-10T12:00:00Z')
    expect([iso(spring.start), iso(spring.end)]).toEqual(['2024-03-10T05:00:00.000Z', '2024-03-11T04:00:00.000Z'])
    expect(hours(spring)).toBe(23)
    const fall = day('America/New_York', '2024-11-03T05:30:00Z') // 01:30 local, the first of two
    expect([iso(fall.start), iso(fall.end)]).toEqual(['2024-11-03T04:00:00.000Z', '2024-11-04T05:00:00.000Z'])
    expect(hours(fall)).toBe(25)
    expect(day('America/New_York', '2024-11-03T06:30:00Z')).toEqual(fall) // 01:30 local, the second time
  })

  test('Berlin: the last Sundays of March and October', () => {
    const spring = day('Europe/Berlin', '2024-03-31T10:00:00Z')
    expect([iso(spring.start), iso(spring.end)]).toEqual(['2024-03-30T23:00:00.000Z', '2024-03-31T22:00:00.000Z'])
    expect(hours(day('Europe/Berlin', '2024-10-27T10:00:00Z'))).toBe(25)
    expect(iso(day('Europe/Berlin', '2024-10-27T10:00:00Z').start)).toBe('2024-10-26T22:00:00.000Z')
  })

  test('Lord Howe: a half-hour change makes 23.5- and 24.5-hour days', () => {
    const spring = day('Australia/Lord_Howe', '2024-10-06T03:00:00Z')
    expect([iso(spring.start), iso(spring.end)]).toEqual(['2024-10-05T13:30:00.000Z', '2024-10-06T13:00:00.000Z'])
    expect(hours(spring)).toBe(23.5)
    expect(hours(day('Australia/Lord_Howe', '2024-04-07T03:00:00Z'))).toBe(24.5)
  })

  test('Santiago: a day whose midnight does not exist starts when the clocks jump', () => {
    // 2024-09-08: clocks jump from 00:00 (-04) to 01:00 (-03), so the day starts at 04:00Z, local 01:00.
    const skipped = day('America/Santiago', '2024-09-08T15:00:00Z')
    expect([iso(skipped.start), iso(skipped.end)]).toEqual(['2024-09-08T04:00:00.000Z', '2024-09-09T03:00:00.000Z'])
    expect(hours(skipped)).toBe(23)
    const before = day('America/Santiago', '2024-09-08T03:59:59.999Z')
    expect([iso(before.start), iso(before.end)]).toEqual(['2024-09-07T04:00:00.000Z', '2024-09-08T04:00:00.000Z'])
    // 2024-04-07: clocks go back from 00:00 (-03) to Saturday 23:00 (-04): Saturday lasts 25 hours.
    const saturday = day('America/Santiago', '2024-04-07T03:30:00Z') // Saturday 23:30 local, the second time
    expect([iso(saturday.start), iso(saturday.end)]).toEqual(['2024-04-06T03:00:00.000Z', '2024-04-07T04:00:00.000Z'])
  })

  test('Havana: a skipped midnight in March, a repeated midnight in November', () => {
    expect(iso(day('America/Havana', '2024-03-10T12:00:00Z').start)).toBe('2024-03-10T05:00:00.000Z')
    expect(hours(day('America/Havana', '2024-03-10T12:00:00Z'))).toBe(23)
    const repeated = day('America/Havana', '2024-11-03T05:30:00Z') // 00:30 local, the second time
    expect([iso(repeated.start), iso(repeated.end)]).toEqual(['2024-11-03T04:00:00.000Z', '2024-11-04T05:00:00.000Z'])
  })

  test('Apia skipped 30 December 2011 whole: the 29th runs into the 31st', () => {
    const before = day('Pacific/Apia', '2011-12-30T09:00:00Z') // 29 December, 23:00 local (-10)
    expect([iso(before.start), iso(before.end)]).toEqual(['2011-12-29T10:00:00.000Z', '2011-12-30T10:00:00.000Z'])
    expect(localDateAt('Pacific/Apia', before.end)).toEqual({ year: 2011, month: 12, day: 31 })
  })

  test('asking about an earlier instant after a later one gives its own period, not the remembered one', () => {
    const options = { timeZone: 'Europe/Berlin' }
    const february = calendarPeriodAt('month', at('2024-02-10T00:00:00Z'), options)
    const january = calendarPeriodAt('month', at('2024-01-10T00:00:00Z'), options)
    expect(iso(january.end)).toBe(iso(february.start))
    expect(calendarPeriodAt('month', at('2024-02-20T00:00:00Z'), options)).toEqual(february)
    expect(calendarPeriodAt('month', at('2024-01-10T00:00:00Z'), { ...options, weekStartsOn: 7 })).toEqual(january)
  })

  test('a boundary instant belongs to the period it starts', () => {
    const range = day('Europe/Berlin', '2024-06-01T12:00:00Z')
    expect(calendarPeriodAt('day', range.end, { timeZone: 'Europe/Berlin' }).start).toBe(range.end)
    expect(calendarPeriodAt('day', range.end - 1, { timeZone: 'Europe/Berlin' })).toEqual(range)
    expect(calendarPeriodAt('day', range.start, { timeZone: 'Europe/Berlin' })).toEqual(range)
  })
})

describe('calendar weeks and months', () => {
  test('weeks start on Monday unless told otherwise, and span a DST change', () => {
    const monday = calendarPeriodAt('week', at('2024-03-10T17:00:00Z'), { timeZone: 'America/New_York' })
    expect([iso(monday.start), iso(monday.end)]).toEqual(['2024-03-04T05:00:00.000Z', '2024-03-11T04:00:00.000Z'])
    expect(hours(monday)).toBe(7 * 24 - 1)
    const sunday = calendarPeriodAt('week', at('2024-03-10T17:00:00Z'), { timeZone: 'America/New_York', weekStartsOn: 7 })
    expect([iso(sunday.start), iso(sunday.end)]).toEqual(['2024-03-10T05:00:00.000Z', '2024-03-17T04:00:00.000Z'])
    // Sunday 23:59:59 in Tokyo is still the old week; a second later the new one starts.
    const tokyo = calendarPeriodAt('week', at('2024-06-09T14:59:59Z'), { timeZone: 'Asia/Tokyo' })
    expect(iso(tokyo.end)).toBe('2024-06-09T15:00:00.000Z')
    expect(iso(calendarPeriodAt('week', tokyo.end, { timeZone: 'Asia/Tokyo' }).start)).toBe('2024-06-09T15:00:00.000Z')
  })

  test('a week crossing a year and month end', () => {
    const range = calendarPeriodAt('week', at('2025-01-01T00:00:00Z'), { timeZone: 'UTC' })
    expect([iso(range.start), iso(range.end)]).toEqual(['2024-12-30T00:00:00.000Z', '2025-01-06T00:00:00.000Z'])
  })

  test('months: 31 January runs into February, leap Februaries have 29 days', () => {
    const january = calendarPeriodAt('month', at('2024-01-31T23:59:59.999Z'), { timeZone: 'UTC' })
    expect([iso(january.start), iso(january.end)]).toEqual(['2024-01-01T00:00:00.000Z', '2024-02-01T00:00:00.000Z'])
    const leap = calendarPeriodAt('month', at('2024-02-29T12:00:00Z'), { timeZone: 'UTC' })
    expect(hours(leap)).toBe(29 * 24)
    expect(hours(calendarPeriodAt('month', at('2023-02-15T00:00:00Z'), { timeZone: 'UTC' }))).toBe(28 * 24)
    expect(hours(calendarPeriodAt('month', at('2000-02-15T00:00:00Z'), { timeZone: 'UTC' }))).toBe(29 * 24)
    expect(hours(calendarPeriodAt('month', at('2100-02-15T00:00:00Z'), { timeZone: 'UTC' }))).toBe(28 * 24)
  })

  test('months in a zone: 23:30 UTC on 31 January is already February in Berlin', () => {
    const february = calendarPeriodAt('month', at('2024-01-31T23:30:00Z'), { timeZone: 'Europe/Berlin' })
    expect([iso(february.start), iso(february.end)]).toEqual(['2024-01-31T23:00:00.000Z', '2024-02-29T23:00:00.000Z'])
    const march = calendarPeriodAt('month', at('2024-03-15T00:00:00Z'), { timeZone: 'Europe/Berlin' })
    expect(hours(march)).toBe(31 * 24 - 1) // the spring-forward month
    const december = calendarPeriodAt('month', at('2024-12-31T23:30:00Z'), { timeZone: 'Europe/Berlin' })
    expect(iso(december.start)).toBe('2024-12-31T23:00:00.000Z') // January 2025 already
    expect(iso(december.end)).toBe('2025-01-31T23:00:00.000Z')
  })

  test('a month whose first midnight does not exist starts when the clocks jump', () => {
    // Asunción moved its clocks from 00:00 to 01:00 on Sunday 1 October 2017 (-04 → -03).
    const october = calendarPeriodAt('month', at('2017-10-15T00:00:00Z'), { timeZone: 'America/Asuncion' })
    expect(iso(october.start)).toBe('2017-10-01T04:00:00.000Z')
    const september = calendarPeriodAt('month', at('2017-09-30T12:00:00Z'), { timeZone: 'America/Asuncion' })
    expect([iso(september.start), iso(september.end)]).toEqual(['2017-09-01T04:00:00.000Z', '2017-10-01T04:00:00.000Z'])
    expect(startOfLocalDay('America/Havana', 2012, 4, 1)).toBe(at('2012-04-01T05:00:00Z'))
  })
})

describe('every period contains its instant and the next starts where it ends', () => {
  const zones = [
    'UTC',
    'America/New_York',
    'Europe/Berlin',
    'Australia/Lord_Howe',
    'America/Santiago',
    'America/Havana',
    'Asia/Kathmandu',
    'Pacific/Chatham',
    'Pacific/Apia',
    'America/St_Johns',
    'Africa/Casablanca',
    'Asia/Tehran',
  ]
  const units: CalendarUnit[] = ['day', 'week', 'month']
  test.each(zones)('%s', (zone) => {
    // A deterministic walk over 2010-2026 in irregular steps, so every kind of clock change is crossed.
    let now = at('2010-01-01T00:00:00Z')
    const stop = at('2026-12-31T00:00:00Z')
    for (let step = 0; now < stop; step++) {
      const unit = units[step % 3]!
      const range = calendarPeriodAt(unit, now, { timeZone: zone })
      expect(range.start <= now && now < range.end).toBe(true)
      const next = calendarPeriodAt(unit, range.end, { timeZone: zone })
      expect(next.start).toBe(range.end)
      if (unit === 'day') expect(hours(range)).toBeGreaterThanOrEqual(22)
      if (unit === 'day') expect(hours(range)).toBeLessThanOrEqual(26)
      now += 3_600_000 * (37 + ((step * 7919) % 200)) + (step % 61) * 60_000
    }
  })

  test('the start of a period is local midnight on the right date where midnight exists', () => {
    const range = calendarPeriodAt('month', at('2024-07-15T00:00:00Z'), { timeZone: 'Asia/Kathmandu' })
    expect(iso(range.start)).toBe('2024-06-30T18:15:00.000Z')
    expect(localDateAt('Asia/Kathmandu', range.start)).toEqual({ year: 2024, month: 7, day: 1 })
    expect(localDateAt('Asia/Kathmandu', range.start - 1)).toEqual({ year: 2024, month: 6, day: 30 })
  })
})
