import { TextField } from './fields.tsx'

/** The two day fields of a filter form (UTC dates); `error` marks a range that ends before it starts. */
export function DayRange({
  from,
  to,
  onFrom,
  onTo,
  error,
}: {
  from: string
  to: string
  onFrom: (value: string) => void
  onTo: (value: string) => void
  error?: string
}) {
  return (
    <>
      <TextField label="From (UTC)" type="date" value={from} onValue={onFrom} required />
      <TextField label="To (UTC)" type="date" value={to} onValue={onTo} required error={error} />
    </>
  )
}

/** A filter form's buttons: apply (not while the range is wrong) or go back to the page's defaults. */
export function FilterActions({ invalid, reset }: { invalid: boolean; reset: string }) {
  return (
    <div class="actions">
      <button type="submit" class="button" disabled={invalid}>
        Apply filters
      </button>
      <a class="button secondary" href={reset}>
        Reset
      </a>
    </div>
  )
}
