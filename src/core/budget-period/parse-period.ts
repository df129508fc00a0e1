/**
 * Budget periods as an operator writes them in the config, the admin API or the CLI: `day`, `week`, `month`
 * (calendar periods in the operator's time zone), a fixed length (`30m`, `5h`, `7d`) or `total` (never resets).
 * Parsing is strict, and every refusal names the value and what would have been accepted: a budget that silently
 * became lifetime because of a typo is the bug users report most about other gateways.
 */
import type { CalendarUnit } from './calendar.ts'

export type BudgetPeriod = { kind: 'calendar'; unit: CalendarUnit } | { kind: 'window'; lengthMs: number } | { kind: 'total' }

const unitMs = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const

/** The longest fixed window: beyond a year a window is a lifetime budget in disguise. */
export const maxWindowMs = 366 * unitMs.d

const hint = 'use day, week, month, total, or a length such as 30m, 5h or 7d'

/** The period a text names, or an Error whose message names the text. */
export function parseBudgetPeriod(text: string): BudgetPeriod {
  const value = text.trim().toLowerCase()
  if (value === 'day' || value === 'week' || value === 'month') return { kind: 'calendar', unit: value }
  if (value === 'total') return { kind: 'total' }
  const match = /^(\d{1,6})(s|m|h|d|w)$/.exec(value)
  if (!match) throw new Error(`"${text}" is not a budget period: ${hint}`)
  const lengthMs = Number(match[1]) * unitMs[match[2] as keyof typeof unitMs]
  if (lengthMs === 0) throw new Error(`"${text}" is not a budget period: a window must last at least 1s`)
  if (lengthMs > maxWindowMs)
    throw new Error(`"${text}" is not a budget period: a window lasts at most 366d (use total for a budget that never resets)`)
  return { kind: 'window', lengthMs }
}

/** The period as it is written (`5h`, `7d`, `month`): the largest of d, h, m that divides a window's length exactly. */
export function formatBudgetPeriod(period: BudgetPeriod): string {
  if (period.kind === 'calendar') return period.unit
  if (period.kind === 'total') return 'total'
  for (const unit of ['d', 'h', 'm'] as const) {
    if (period.lengthMs % unitMs[unit] === 0) return `${period.lengthMs / unitMs[unit]}${unit}`
  }
  return `${Math.ceil(period.lengthMs / unitMs.s)}s`
}

/** The zone's canonical IANA name (`europe/berlin` → `Europe/Berlin`), or an Error naming the text. */
export function parseTimeZone(text: string): string {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: text.trim() }).resolvedOptions().timeZone
  } catch {
    throw new Error(`"${text}" is not a time zone: use an IANA name such as UTC, Europe/Berlin or America/New_York`)
  }
}
