import { useState } from 'preact/hooks'
import { ApiError, postJson, setCsrfToken } from '../api.ts'
import { FormError, TextField } from '../components/fields.tsx'
import { PageHeader } from '../layout.tsx'
import type { PageProps } from '../routes.tsx'
import type { SessionInfo } from '../types.ts'

/** Change one's own password: the current one first. Other browsers signed in as this login are signed out. */
export function Password({ session }: PageProps) {
  const [current, setCurrent] = useState('')
  const [next, setNext] = useState('')
  const [again, setAgain] = useState('')
  const [error, setError] = useState<ApiError>()
  const [busy, setBusy] = useState(false)
  const [done, setDone] = useState(false)
  const mismatch = again !== '' && again !== next ? 'The two new passwords differ.' : undefined
  const submit = async (event: Event) => {
    event.preventDefault()
    if (mismatch) return
    setBusy(true)
    setError(undefined)
    try {
      // The answer is a fresh session (the old one ended with the change): its CSRF token replaces ours.
      const fresh = await postJson<SessionInfo>('/session/password', { current_password: current, new_password: next })
      setCsrfToken(fresh.csrf_token)
      setDone(true)
      setCurrent('')
      setNext('')
      setAgain('')
    } catch (failure) {
      setError(failure as ApiError)
    }
    setBusy(false)
  }
  const fieldError = (field: string) => (error?.field === field ? error.message : undefined)
  return (
    <>
      <PageHeader title="Change password" />
      {done && (
        <p class="notice" role="status">
          Password changed. Every other browser signed in as {session.user.name} has been signed out.
        </p>
      )}
      <form class="card form narrow" onSubmit={submit} aria-label="Change password">
        <input type="text" autoComplete="username" value={session.user.name} hidden readOnly />
        <TextField
          label="Current password"
          type="password"
          value={current}
          onValue={setCurrent}
          required
          autoComplete="current-password"
          error={fieldError('current_password')}
        />
        <TextField
          label="New password"
          type="password"
          value={next}
          onValue={setNext}
          required
          autoComplete="new-password"
          hint="At least 12 characters."
          error={fieldError('new_password')}
        />
        <TextField
          label="New password again"
          type="password"
          value={again}
          onValue={setAgain}
          required
          autoComplete="new-password"
          error={mismatch}
        />
        <FormError error={error && !['current_password', 'new_password'].includes(error.field ?? '') ? error : undefined} />
        <div class="actions">
          <button type="submit" class="button" disabled={busy || !!mismatch}>
            {busy ? 'Changing…' : 'Change password'}
          </button>
        </div>
      </form>
    </>
  )
}
