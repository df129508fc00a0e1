import { useEffect, useState } from 'preact/hooks'
import { callApi } from '../api.ts'
import { FormError, TextField } from '../components/fields.tsx'
import { Loading } from '../components/states.tsx'
import { useResource } from '../use-resource.ts'
import type { SessionInfo, SignInMethods } from '../types.ts'

/** When the server cannot say (an older gateway, a network blip), the password form is what it always offered. */
const passwordsOnly: SignInMethods = { passwords: true, single_sign_on: null }

export function SignIn({ onSignedIn }: { onSignedIn: (session: SessionInfo) => void }) {
  const methods = useResource<SignInMethods>('/sign-in-methods')
  useEffect(() => {
    document.title = 'Sign in · Tollgate'
  }, [])
  // The heading and the fields appear together, so nothing typed before the form is there is lost.
  if (methods.loading)
    return (
      <main class="sign-in">
        <Loading label="Loading…" />
      </main>
    )
  const { passwords, single_sign_on: provider } = methods.data ?? passwordsOnly
  return (
    <main class="sign-in">
      <div class="card sign-in-card">
        <p class="brand">
          <span class="brand-mark" aria-hidden="true">
            T
          </span>
          Tollgate
        </p>
        <h1 id="sign-in-title">Sign in</h1>
        {provider && (
          // A plain link: the server sends the browser on to the identity provider and takes it back.
          <a class={`button wide${passwords ? ' secondary' : ''}`} href={provider.url}>
            Sign in with {provider.name}
          </a>
        )}
        {provider && passwords && <p class="hint">or with a username and password:</p>}
        {passwords && <PasswordForm onSignedIn={onSignedIn} />}
        {passwords ? (
          <p class="hint">
            No login yet? An operator creates one with <code>tollgate user create</code>.
          </p>
        ) : (
          <p class="hint">Your organisation's identity provider signs you in.</p>
        )}
      </div>
    </main>
  )
}

function PasswordForm({ onSignedIn }: { onSignedIn: (session: SessionInfo) => void }) {
  const [username, setUsername] = useState('')
  const [password, setPassword] = useState('')
  const [error, setError] = useState<Error>()
  const [busy, setBusy] = useState(false)
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
    <form onSubmit={submit} aria-labelledby="sign-in-title">
      <TextField
        label="Username"
        value={username}
        onValue={setUsername}
        autoComplete="username"
        autoCapitalize="none"
        spellcheck={false}
        required
        autoFocus
      />
      <TextField label="Password" type="password" value={password} onValue={setPassword} autoComplete="current-password" required />
      <FormError error={error} />
      <button type="submit" class="button wide" disabled={busy}>
        {busy ? 'Signing in…' : 'Sign in'}
      </button>
    </form>
  )
}
