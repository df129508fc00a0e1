/** Display helpers. Money strings are shown as the server sent them: only a sign and a dollar mark are added. */
export function usd(amount: string): string {
  return amount.startsWith('-') ? `-$${amount.slice(1)}` : `$${amount}`
}

/** Times are shown in UTC, like the daily buckets of the charts, so a request and its day always agree. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—'
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`
}

export function formatDate(iso: string | null | undefined): string {
  return iso ? iso.slice(0, 10) : '—'
}

export function count(value: number): string {
  return value.toLocaleString('en-US')
}

export function keyLabel(key: { name: string | null; prefix: string }): string {
  return key.name ? `${key.name} (${key.prefix}…)` : `${key.prefix}…`
}

/** YYYY-MM-DD for a date input, `days` before today (UTC). */
export function isoDay(daysAgo = 0): string {
  return new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10)
}

/** The exclusive upper bound for a "to" date the user picked: midnight UTC after that day. */
export function dayAfter(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString()
}
