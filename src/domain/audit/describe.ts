import type { AuditFields, AuditValue } from './records.ts'

const show = (value: AuditValue | undefined) =>
  value === undefined || value === null ? '-' : Array.isArray(value) ? value.join(',') : String(value)

/** A row's fields as one line for people: `rpm: 60 → 100; secret: rotated; name: acme`. */
export function describeChanges(before: AuditFields | null, after: AuditFields | null): string {
  const names = [...new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])]
  return names
    .map((name) => {
      if (before && name in before && after && name in after) return `${name}: ${show(before[name])} → ${show(after[name])}`
      return `${name}: ${show(before && name in before ? before[name] : after?.[name])}${before && name in before ? ' (removed)' : ''}`
    })
    .join('; ')
}
