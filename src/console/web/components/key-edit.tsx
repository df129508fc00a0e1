import { useState } from 'preact/hooks'
import { addressListHint, readAddressList } from '../address-list.ts'
import { ApiError, callApi } from '../api.ts'
import type { Key } from '../types.ts'
import { CountField, FormError, TextField } from './fields.tsx'
import { ModelPicker } from './model-picker.tsx'

const text = (value: number | null) => (value === null ? '' : String(value))
const limitNumber = (value: string) => (value.trim() === '' ? null : Number(value))
const fields = ['name', 'models', 'rpm', 'tpm', 'concurrency', 'budget_usd', 'expires_at', 'allowed_ips']

/** A key's name, models, limits, budget, expiry and allowed addresses, changed in place; empty means no limit. Takes effect at once. */
export function KeyEditForm({
  apiKey,
  models,
  onSaved,
  onCancel,
}: {
  apiKey: Key
  models: string[]
  onSaved: (key: Key) => void
  onCancel: () => void
}) {
  const [name, setName] = useState(apiKey.name ?? '')
  const [chosen, setChosen] = useState<string[] | null>(apiKey.models)
  const [rpm, setRpm] = useState(text(apiKey.rpm))
  const [tpm, setTpm] = useState(text(apiKey.tpm))
  const [concurrency, setConcurrency] = useState(text(apiKey.concurrency))
  const [budget, setBudget] = useState(apiKey.budget_usd ?? '')
  const [expires, setExpires] = useState(apiKey.expires_at?.slice(0, 10) ?? '')
  const [allowedIps, setAllowedIps] = useState(apiKey.allowed_ips?.join(', ') ?? '')
  const [error, setError] = useState<ApiError>()
  const [busy, setBusy] = useState(false)
  const fieldError = (field: string) => (error?.field?.startsWith(field) ? error.message : undefined)
  const submit = async (event: Event) => {
    event.preventDefault()
    setBusy(true)
    setError(undefined)
    try {
      onSaved(
        await callApi<Key>('PATCH', `/keys/${encodeURIComponent(apiKey.id)}`, {
          name: name.trim() || null,
          models: chosen,
          rpm: limitNumber(rpm),
          tpm: limitNumber(tpm),
          concurrency: limitNumber(concurrency),
          budget_usd: budget.trim() || null,
          allowed_ips: readAddressList(allowedIps),
          // An unchanged expiry is sent as it was (a past day could not be chosen again); a new day starts at 00:00 UTC.
          expires_at: expires === (apiKey.expires_at?.slice(0, 10) ?? '') ? apiKey.expires_at : expires ? `${expires}T00:00:00Z` : null,
        }),
      )
    } catch (failure) {
      setError(failure as ApiError)
      setBusy(false)
    }
  }
  return (
    <form class="card form" onSubmit={submit} noValidate aria-label="Edit key">
      <h2>Edit key</h2>
      <TextField label="Name" value={name} onValue={setName} maxLength={100} error={fieldError('name')} />
      <ModelPicker models={models} value={chosen} onValue={setChosen} error={fieldError('models')} />
      <fieldset class="field limits">
        <legend>Limits and expiry</legend>
        <p class="hint">Leave a field empty for no limit. Changes count from the next request.</p>
        <div class="grid">
          <CountField label="Requests per minute" value={rpm} onValue={setRpm} error={fieldError('rpm')} />
          <CountField label="Tokens per minute" value={tpm} onValue={setTpm} error={fieldError('tpm')} />
          <CountField label="Concurrent requests" value={concurrency} onValue={setConcurrency} error={fieldError('concurrency')} />
          <TextField
            label="Budget (USD)"
            inputMode="decimal"
            placeholder="e.g. 25.00"
            value={budget}
            onValue={setBudget}
            error={fieldError('budget_usd')}
          />
          <TextField label="Expires on (UTC)" type="date" value={expires} onValue={setExpires} error={fieldError('expires_at')} />
        </div>
        <TextField
          label="Allowed addresses"
          placeholder="any address"
          value={allowedIps}
          onValue={setAllowedIps}
          hint={addressListHint}
          error={fieldError('allowed_ips')}
        />
      </fieldset>
      <FormError error={error && !fields.some((field) => error.field?.startsWith(field)) ? error : undefined} />
      <div class="actions">
        <button type="submit" class="button" disabled={busy}>
          {busy ? 'Saving…' : 'Save changes'}
        </button>
        <button type="button" class="button secondary" onClick={onCancel} disabled={busy}>
          Cancel
        </button>
      </div>
    </form>
  )
}
