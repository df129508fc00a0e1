import { useState } from 'preact/hooks'
import { postJson } from '../api.ts'
import { keyLabel } from '../format.ts'
import type { Key } from '../types.ts'
import { ConfirmDialog } from './confirm-dialog.tsx'

/** "Rotate secret" and its confirmation; the new secret goes to `onRotated`, to be shown once. */
export function RotateKeyButton({ apiKey, onRotated }: { apiKey: Key; onRotated: (created: { key: Key; secret: string }) => void }) {
  const [asking, setAsking] = useState(false)
  return (
    <>
      <button type="button" class="button secondary" onClick={() => setAsking(true)}>
        Rotate secret
      </button>
      {asking && (
        <ConfirmDialog
          title="Rotate this key's secret?"
          confirmLabel="Rotate secret"
          onClose={() => setAsking(false)}
          onConfirm={async () => onRotated(await postJson<{ key: Key; secret: string }>(`/keys/${encodeURIComponent(apiKey.id)}/rotate`))}
        >
          <p>
            <strong>{keyLabel(apiKey)}</strong> gets a new secret, shown once. The current secret stops working at once: every application
            using it must be given the new one.
          </p>
          <p>Limits, spend and request history stay with the key.</p>
        </ConfirmDialog>
      )}
    </>
  )
}
