import { describe, expect, test } from 'bun:test'
import { currentPeriod, formatBudgetPeriod, parseBudgetPeriod, parseTimeZone, windowAt } from './index.ts'
import { offsetAt } from './zoned-time.ts'

const at = (iso: string) => Date.parse(iso)
const hour = 3_600_000

describe('parsing budget periods', () => {
  test('calendar periods, total and fixed lengths', () => {
    expect(parseBudgetPeriod('day')).toEqual({ kind: 'calendar', unit: 'day' })
    expect(parseBudgetPeriod(' Month ')).toEqual({ kind: 'calendar', unit: 'month' })
    expect(parseBudgetPeriod('week')).toEqual({ kind: 'calendar', unit: 'week' })
    expect(parseBudgetPeriod('total')).toEqual({ kind: 'total' })
    expect(parseBudgetPeriod('30m')).toEqual({ kind: 'window', lengthMs: 30 * 60_000 })
    expect(parseBudgetPeriod('5h')).toEqual({ kind: 'window', lengthMs: 5 * hour })
    expect(parseBudgetPeriod('7d')).toEqual({ kind: 'window', lengthMs: 7 * 24 * hour })
    expect(parseBudgetPeriod('2w')).toEqual({ kind: 'window', lengthMs: 14 * 24 * hour })
    expect(parseBudgetPeriod('3s')).toEqual({ kind: 'window', lengthMs: 3_000 })
  })

  test('refusals name the value and what would do', () => {
    expect(() => parseBudgetPeriod('daily')).toThrow(
      '"daily" is not a budget period: use day, week, month, total, or a length such as 30m, 5h or 7d',
    )
    expect(() => parseBudgetPeriod('5 h')).toThrow('"5 h" is not a budget period')
    expect(() => parseBudgetPeriod('1.5h')).toThrow('"1.5h" is not a budget period')
    expect(() => parseBudgetPeriod('-5h')).toThrow('"-5h"')
    expect(() => parseBudgetPeriod('')).toThrow('"" is not a budget period')
    expect(() => parseBudgetPeriod('0h')).toThrow('"0h" is not a budget period: a window must last at least 1s')
    expect(() => parseBudgetPeriod('367d')).toThrow('"367d" is not a budget period: a window lasts at most 366d')
    expect(parseBudgetPeriod('366d')).toEqual({ kind: 'window', lengthMs: 366 * 24 * hour })
  })

  test('formatting writes a period back the way an operator would', () => {
    for (const text of ['day', 'week', 'month', 'total', '30m', '5h', '7d', '14d', '90s']) {
      expect(formatBudgetPeriod(parseBudgetPeriod(text))).toBe(text)
    }
    expect(formatBudgetPeriod(parseBudgetPeriod('120m'))).toBe('2h')
    expect(formatBudgetPeriod(parseBudgetPeriod('2w'))).toBe('14d')
  })

  test('time zones: canonical names in, a clear refusal otherwise', () => {
    expect(parseTimeZone('europe/berlin')).toBe('Europe/Berlin')
    expect(parseTimeZone('UTC')).toBe('UTC')
    expect(parseTimeZone('Australia/Lord_Howe')).toBe('Australia/Lord_Howe')
    expect(() => parseTimeZone('Mars/Olympus')).toThrow(
      '"Mars/Olympus" is not a time zone: use an IANA name such as UTC, Europe/Berlin or America/New_York',
    )
    expect(() => parseTimeZone('')).toThrow('"" is not a time zone')
  })

  test('offsets come from the zone database, to the minute', () => {
    expect(offsetAt('Asia/Kathmandu', at('2024-01-01T00:00:00Z'))).toBe(5.75 * hour)
    expect(offsetAt('Australia/Lord_Howe', at('2024-01-01T00:00:00Z'))).toBe(11 * hour)
    expect(offsetAt('Australia/Lord_Howe', at('2024-07-01T00:00:00Z'))).toBe(10.5 * hour)
    expect(offsetAt('America/New_York', at('2024-07-01T00:00:00.123Z'))).toBe(-4 * hour)
  })
})

describe('fixed windows start with their first request', () => {
  const fiveHours = 5 * hour
  test('no window yet: this request opens one', () => {
    expect(windowAt(fiveHours, undefined, 1_000)).toEqual({ start: 1_000, end: 1_000 + fiveHours, opened: true })
  })

  test('an open window is kept until its last millisecond', () => {
    expect(windowAt(fiveHours, 1_000, 1_000)).toEqual({ start: 1_000, end: 1_000 + fiveHours, opened: false })
    expect(windowAt(fiveHours, 1_000, 1_000 + fiveHours - 1).opened).toBe(false)
  })

  test('the first request after a window ends opens the next, however long after', () => {
    expect(windowAt(fiveHours, 1_000, 1_000 + fiveHours)).toEqual({ start: 1_000 + fiveHours, end: 1_000 + 2 * fiveHours, opened: true })
    const later = 1_000 + 30 * 24 * hour + 17
    expect(windowAt(fiveHours, 1_000, later)).toEqual({ start: later, end: later + fiveHours, opened: true })
  })

  test('a window recorded by an instance whose clock runs ahead stays the open one', () => {
    expect(windowAt(fiveHours, 10_000, 9_500)).toEqual({ start: 10_000, end: 10_000 + fiveHours, opened: false })
  })
})

describe('the current period and its identifier', () => {
  const berlin = { timeZone: 'Europe/Berlin' }
  test('calendar: the identifier is the period start, so every instant of the period shares it', () => {
    const morning = currentPeriod(parseBudgetPeriod('day'), at('2024-10-27T05:00:00Z'), berlin)
    const evening = currentPeriod(parseBudgetPeriod('day'), at('2024-10-27T22:59:59.999Z'), berlin)
    expect(morning).toEqual({
      id: at('2024-10-26T22:00:00Z'),
      start: at('2024-10-26T22:00:00Z'),
      resetsAt: at('2024-10-27T23:00:00Z'),
      opened: false,
    })
    expect(evening).toEqual(morning)
    const next = currentPeriod(parseBudgetPeriod('day'), at('2024-10-27T23:00:00Z'), berlin)
    expect(next.id).toBe(morning.resetsAt!)
    expect(next.id).not.toBe(morning.id)
  })

  test('a request admitted before a boundary keeps its identifier; one admitted after gets the new one', () => {
    const month = parseBudgetPeriod('month')
    const admitted = currentPeriod(month, at('2024-01-31T22:59:59Z'), berlin) // 23:59:59 local, January
    const settledAt = at('2024-01-31T23:00:01Z') // February by then: the settlement uses the recorded identifier
    expect(currentPeriod(month, settledAt, berlin).id).toBe(admitted.resetsAt!)
    expect(admitted.id).toBe(at('2023-12-31T23:00:00Z'))
  })

  test('fixed windows take the recorded start; total never resets', () => {
    const window = parseBudgetPeriod('5h')
    expect(currentPeriod(window, 7_000, { ...berlin, windowStart: 5_000 })).toEqual({
      id: 5_000,
      start: 5_000,
      resetsAt: 5_000 + 5 * hour,
      opened: false,
    })
    expect(currentPeriod(window, 7_000, berlin)).toEqual({ id: 7_000, start: 7_000, resetsAt: 7_000 + 5 * hour, opened: true })
    expect(currentPeriod(parseBudgetPeriod('total'), 7_000, berlin)).toEqual({ id: 0, start: 0, resetsAt: undefined, opened: false })
  })

  test('weeks honour the configured first day', () => {
    const sunday = currentPeriod(parseBudgetPeriod('week'), at('2024-06-09T12:00:00Z'), { timeZone: 'UTC', weekStartsOn: 7 })
    expect(sunday.start).toBe(at('2024-06-09T00:00:00Z'))
    const monday = currentPeriod(parseBudgetPeriod('week'), at('2024-06-09T12:00:00Z'), { timeZone: 'UTC' })
    expect(monday.start).toBe(at('2024-06-03T00:00:00Z'))
  })
})
