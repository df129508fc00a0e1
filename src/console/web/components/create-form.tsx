import type { ComponentChildren } from 'preact'
import { useState } from 'preact/hooks'
import { FormError } from './fields.tsx'

/**
 * A small form whose submit calls the server and shows its error in place; `onSubmit` returning means success. With
 * `onCancel` (an edit form) it has a Cancel button too.
 */
export function CreateForm({
  title,
  submitLabel,
  onSubmit,
  onCancel,
  children,
}: {
  title: string
  submitLabel: string
  onSubmit: () => Promise<void>
  onCancel?: () => void
  children: ComponentChildren
}) {
  const [error, setError] = useState<Error>()
  const [busy, setBusy] = useState(false)
  const submit = async (event: Event) => {
    event.preventDefault()
    setBusy(true)
    setError(undefined)
    try {
      await onSubmit()
    } catch (failure) {
      setError(failure as Error)
    }
    setBusy(false)
  }
  return (
    <form class="card form" onSubmit={submit} aria-label={title}>
      <h2>{title}</h2>
      <div class="grid">{children}</div>
      <FormError error={error} />
      <div class="actions">
        <button type="submit" class="button" disabled={busy}>
          {busy ? 'Working…' : submitLabel}
        </button>
        {onCancel && (
          <button type="button" class="button secondary" onClick={onCancel} disabled={busy}>
            Cancel
          </button>
        )}
      </div>
    </form>
  )
}
