import { useState } from 'preact/hooks'
import { addressListHint, readAddressList } from '../address-list.ts'
import { ApiError, postJson } from '../api.ts'
import { AccountSelect } from '../components/account-select.tsx'
import { ProjectSelect } from '../components/project-select.tsx'
import { CountField, FormError, TextField } from '../components/fields.tsx'
import { ModelPicker } from '../components/model-picker.tsx'
import { SecretReveal } from '../components/secret-reveal.tsx'
import { PageHeader } from '../layout.tsx'
import type { PageProps } from '../routes.tsx'
import type { Key } from '../types.ts'

type Limits = Record<'rpm' | 'tpm' | 'concurrency' | 'budget' | 'expires' | 'allowedIps', string>

function Created({ created }: { created: { key: Key; secret: string } }) {
  return (
    <>
      <PageHeader title="Key created" />
      <SecretReveal label={`Secret of ${created.key.name ?? 'the new key'}`} secret={created.secret} testId="new-key-secret">
        <p class="hint">
          Use it as the API key with base URL <code>{location.origin}/v1</code> in any OpenAI-compatible client.
        </p>
      </SecretReveal>
      <div class="actions">
        <a class="button" href={`/console/keys/${encodeURIComponent(created.key.id)}`}>
          Done — view the key
        </a>
        <a class="button secondary" href="/console/keys">
          Back to keys
        </a>
      </div>
    </>
  )
}

function limitNumber(text: string): number | null {
  return text.trim() === '' ? null : Number(text)
}

export function NewKey({ session, search }: PageProps) {
  const admin = session.user.role === 'admin'
  const [accountId, setAccountId] = useState(search.get('account') ?? '')
  const [name, setName] = useState('')
  const [models, setModels] = useState<string[] | null>(null)
  const [project, setProject] = useState('')
  const [limits, setLimits] = useState<Limits>({ rpm: '', tpm: '', concurrency: '', budget: '', expires: '', allowedIps: '' })
  const [error, setError] = useState<ApiError>()
  const [busy, setBusy] = useState(false)
  const [created, setCreated] = useState<{ key: Key; secret: string }>()
  const limit = (field: keyof Limits) => (value: string) => setLimits({ ...limits, [field]: value })
  const fieldError = (field: string) => (error?.field?.startsWith(field) ? error.message : undefined)

  const submit = async (event: Event) => {
    event.preventDefault()
    setBusy(true)
    setError(undefined)
    try {
      setCreated(
        await postJson<{ key: Key; secret: string }>('/keys', {
          account_id: admin ? (accountId ? Number(accountId) : undefined) : undefined,
          name: name.trim() || null,
          models,
          rpm: limitNumber(limits.rpm),
          tpm: limitNumber(limits.tpm),
          concurrency: limitNumber(limits.concurrency),
          budget_usd: limits.budget.trim() || null,
          // The key stops working at the start of the chosen day, UTC.
          expires_at: limits.expires ? `${limits.expires}T00:00:00Z` : null,
          allowed_ips: readAddressList(limits.allowedIps),
          project_id: project ? Number(project) : null,
        }),
      )
    } catch (failure) {
      setError(failure as ApiError)
      setBusy(false)
    }
  }

  if (created) return <Created created={created} />
  return (
    <>
      <PageHeader title="Create an API key" />
      <form class="card form" onSubmit={submit} noValidate>
        {admin && (
          <AccountSelect
            value={accountId}
            onValue={setAccountId}
            empty="Choose an account…"
            hint="The account whose balance pays for this key's requests."
          />
        )}
        <TextField
          label="Name"
          value={name}
          onValue={setName}
          maxLength={100}
          hint="Something to recognise it by, such as the app or machine using it."
          error={fieldError('name')}
        />
        <ProjectSelect session={session} accountId={accountId} value={project} onValue={setProject} />
        <ModelPicker models={session.models} value={models} onValue={setModels} error={fieldError('models')} />
        <fieldset class="field limits">
          <legend>Limits and expiry (optional)</legend>
          <p class="hint">Leave a field empty for no limit.</p>
          <div class="grid">
            <CountField label="Requests per minute" value={limits.rpm} onValue={limit('rpm')} error={fieldError('rpm')} />
            <CountField label="Tokens per minute" value={limits.tpm} onValue={limit('tpm')} error={fieldError('tpm')} />
            <CountField
              label="Concurrent requests"
              value={limits.concurrency}
              onValue={limit('concurrency')}
              error={fieldError('concurrency')}
            />
            <TextField
              label="Budget (USD)"
              inputMode="decimal"
              placeholder="e.g. 25.00"
              value={limits.budget}
              onValue={limit('budget')}
              error={fieldError('budget_usd')}
            />
            <TextField
              label="Expires on (UTC)"
              type="date"
              value={limits.expires}
              onValue={limit('expires')}
              error={fieldError('expires_at')}
            />
          </div>
          <TextField
            label="Allowed addresses"
            placeholder="any address"
            value={limits.allowedIps}
            onValue={limit('allowedIps')}
            hint={addressListHint}
            error={fieldError('allowed_ips')}
          />
        </fieldset>
        <FormError
          error={
            error &&
            !['name', 'models', 'rpm', 'tpm', 'concurrency', 'budget_usd', 'expires_at', 'allowed_ips'].some((field) =>
              error.field?.startsWith(field),
            )
              ? error
              : undefined
          }
        />
        <div class="actions">
          <button type="submit" class="button" disabled={busy}>
            {busy ? 'Creating…' : 'Create key'}
          </button>
          <a class="button secondary" href="/console/keys">
            Cancel
          </a>
        </div>
      </form>
    </>
  )
}
