import { useEffect, useState } from 'preact/hooks'
import { ApiError, getJson, onSessionLost, setCsrfToken } from './api.ts'
import { ErrorNotice, Loading } from './components/states.tsx'
import { Layout } from './layout.tsx'
import { Routes } from './routes.tsx'
import { SignIn } from './pages/sign-in.tsx'
import type { SessionInfo } from './types.ts'

/** Asks the server who is signed in; shows the sign-in form when nobody is, the console otherwise. */
export function App() {
  const [session, setSession] = useState<SessionInfo | null | undefined>(undefined)
  const [error, setError] = useState<Error>()
  const signedIn = (info: SessionInfo) => {
    setCsrfToken(info.csrf_token)
    setSession(info)
  }
  const load = () => {
    setError(undefined)
    getJson<SessionInfo>('/session').then(signedIn, (failure: Error) => {
      if (failure instanceof ApiError && failure.status === 401) setSession(null)
      else setError(failure)
    })
  }
  useEffect(() => {
    onSessionLost(() => setSession(null))
    load()
  }, [])
  if (session === undefined)
    return error ? (
      <main class="centered">
        <ErrorNotice error={error} retry={load} />
      </main>
    ) : (
      <main class="centered">
        <Loading label="Loading the console…" />
      </main>
    )
  if (session === null) return <SignIn onSignedIn={signedIn} />
  return (
    <Layout session={session} onSignedOut={() => setSession(null)}>
      <Routes session={session} />
    </Layout>
  )
}
