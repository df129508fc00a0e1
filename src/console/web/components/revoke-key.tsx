import { useState } from 'preact/hooks'
import { postJson } from '../api.ts'
import { keyLabel } from '../format.ts'
import type { Key } from '../types.ts'
import { ConfirmDialog } from './confirm-dialog.tsx'

/** "Revoke" and its confirmation; the key stops working on the API within a second of confirming. */
export function RevokeKeyButton({ apiKey, onRevoked, small }: { apiKey: Key; onRevoked: (key: Key) => void; small?: boolean }) {
  const [asking, setAsking] = useState(false)
  return (
    <>
      <button
        type="button"
        class={`button danger${small ? ' small' : ''}`}
        onClick={() => setAsking(true)}
        aria-label={`Revoke ${keyLabel(apiKey)}`}
      >
        Revoke
      </button>
      {asking && (
        <ConfirmDialog
          title="Revoke this key?"
          confirmLabel="Revoke key"
          onClose={() => setAsking(false)}
          onConfirm={async () => onRevoked(await postJson<Key>(`/keys/${encodeURIComponent(apiKey.id)}/revoke`))}
        >
          <p>
            <strong>{keyLabel(apiKey)}</strong> will stop working within a second: every application using it gets “401 invalid key” from
            then on.
          </p>
          <p>This cannot be undone.</p>
        </ConfirmDialog>
      )}
    </>
  )
}
