import { useState } from 'preact/hooks'
import { ApiError, postJson } from '../api.ts'
import type { Webhook } from '../types.ts'
import { Checkbox, CountField, FormError, TextField } from './fields.tsx'

const events: [string, string][] = [
  ['balance.below', 'Balance below an amount'],
  ['budget.threshold', 'Budget thresholds'],
  ['key.expiring', 'Keys about to expire'],
]
const fields = ['url', 'events', 'balance_below_usd', 'expiry_days', 'budget_percents']

/** A new webhook: where alerts go and which; the signing secret comes back once, to the caller (`onCreated`). */
export function WebhookForm({
  accountId,
  onCreated,
}: {
  accountId: number | undefined
  onCreated: (created: { webhook: Webhook; secret: string }) => void
}) {
  const [url, setUrl] = useState('')
  const [chosen, setChosen] = useState<string[]>(['budget.threshold', 'key.expiring'])
  const [below, setBelow] = useState('')
  const [days, setDays] = useState('7')
  const [percents, setPercents] = useState('50, 80, 100')
  const [error, setError] = useState<ApiError>()
  const [busy, setBusy] = useState(false)
  const fieldError = (field: string) => (error?.field === field ? error.message : undefined)
  // An amount typed means the balance is watched.
  const typeBelow = (value: string) => {
    setBelow(value)
    if (value.trim() && !chosen.includes('balance.below')) setChosen([...chosen, 'balance.below'])
  }
  const toggle = (name: string) => (on: boolean) => setChosen(on ? [...chosen, name] : chosen.filter((event) => event !== name))
  const submit = async (event: Event) => {
    event.preventDefault()
    setBusy(true)
    setError(undefined)
    try {
      const created = await postJson<{ webhook: Webhook; secret: string }>('/webhooks', {
        account_id: accountId,
        url: url.trim(),
        events: chosen,
        balance_below_usd: below.trim() || null,
        expiry_days: Number(days),
        budget_percents: percents
          .split(/[\s,%]+/)
          .filter(Boolean)
          .map(Number),
      })
      setUrl('')
      onCreated(created)
    } catch (failure) {
      setError(failure as ApiError)
    } finally {
      setBusy(false)
    }
  }
  return (
    <form class="card form" onSubmit={submit} noValidate aria-label="New webhook">
      <h2>New webhook</h2>
      <TextField
        label="URL"
        inputMode="url"
        placeholder="https://hooks.example.com/tollgate"
        value={url}
        onValue={setUrl}
        error={fieldError('url')}
        hint="Each alert is POSTed here as JSON, signed with the secret shown once below (the Tollgate-Signature header)."
      />
      <fieldset class="field">
        <legend>Events</legend>
        {events.map(([name, label]) => (
          <Checkbox key={name} label={label} checked={chosen.includes(name)} onChecked={toggle(name)} />
        ))}
        {fieldError('events') && <p class="field-error">{fieldError('events')}</p>}
      </fieldset>
      <div class="grid">
        <TextField
          label="Balance below (USD)"
          inputMode="decimal"
          placeholder="e.g. 10.00"
          value={below}
          onValue={typeBelow}
          error={fieldError('balance_below_usd')}
        />
        <CountField label="Days before a key expires" value={days} onValue={setDays} error={fieldError('expiry_days')} />
        <TextField label="Budget thresholds (%)" value={percents} onValue={setPercents} error={fieldError('budget_percents')} />
      </div>
      <FormError error={error && !fields.includes(error.field ?? '') ? error : undefined} />
      <div class="actions">
        <button type="submit" class="button" disabled={busy}>
          {busy ? 'Creating…' : 'Create webhook'}
        </button>
      </div>
    </form>
  )
}
