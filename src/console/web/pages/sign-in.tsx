import { useEffect, useState } from 'preact/hooks'
import { callApi } from '../api.ts'
import { FormError, TextField } from '../components/fields.tsx'
import type { SessionInfo } from '../types.ts'

export function SignIn({ onSignedIn }: { onSignedIn: (session: SessionInfo) => void }) {
  const [username, setUsername] = useState('')
  const [password, setPassword] = useState('')
  const [error, setError] = useState<Error>()
  const [busy, setBusy] = useState(false)
  useEffect(() => {
    document.title = 'Sign in · Tollgate'
  }, [])
  const submit = async (event: Event) => {
    event.preventDefault()
    setBusy(true)
    setError(undefined)
    try {
      onSignedIn(await callApi<SessionInfo>('POST', '/session', { username: username.trim(), password }))
    } catch (failure) {
      setError(failure as Error)
      setPassword('')
      setBusy(false)
    }
  }
  return (
    <main class="sign-in">
      <form class="card sign-in-card" onSubmit={submit} aria-labelledby="sign-in-title">
        <p class="brand"><span class="brand-mark" aria-hidden="true">T</span>Tollgate</p>
        <h1 id="sign-in-title">Sign in</h1>
        <TextField label="Username" value={username} onValue={setUsername} autoComplete="username" autoCapitalize="none" spellcheck={false} required autoFocus />
        <TextField label="Password" type="password" value={password} onValue={setPassword} autoComplete="current-password" required />
        <FormError error={error} />
        <button type="submit" class="button wide" disabled={busy}>{busy ? 'Signing in…' : 'Sign in'}</button>
        <p class="hint">No login yet? An operator creates one with <code>tollgate user create</code>.</p>
      </form>
    </main>
  )
}
