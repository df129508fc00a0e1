import type { ComponentChildren } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
import { FormError } from './fields.tsx'

/**
 * A modal confirmation built on <dialog>: the browser traps focus inside it, Escape cancels, and focus returns
 * to the button that opened it. `onConfirm` may fail; its message then shows inside the dialog.
 */
export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  onConfirm,
  onClose,
}: {
  title: string
  children: ComponentChildren
  confirmLabel: string
  onConfirm: () => Promise<void>
  onClose: () => void
}) {
  const dialog = useRef<HTMLDialogElement>(null)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<Error>()
  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null
    dialog.current?.showModal()
    return () => opener?.focus()
  }, [])
  const confirm = async () => {
    setBusy(true)
    setError(undefined)
    try {
      await onConfirm()
      onClose()
    } catch (failure) {
      setError(failure as Error)
      setBusy(false)
    }
  }
  return (
    <dialog
      ref={dialog}
      class="dialog"
      aria-labelledby="dialog-title"
      onCancel={(event) => {
        event.preventDefault()
        if (!busy) onClose()
      }}
    >
      <h2 id="dialog-title">{title}</h2>
      <div class="dialog-body">{children}</div>
      <FormError error={error} />
      <div class="actions">
        <button type="button" class="button secondary" onClick={onClose} disabled={busy}>
          Cancel
        </button>
        <button type="button" class="button danger" onClick={confirm} disabled={busy}>
          {busy ? 'Working…' : confirmLabel}
        </button>
      </div>
    </dialog>
  )
}
