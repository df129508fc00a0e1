import { useCallback, useEffect, useState } from 'preact/hooks'
import { getJson } from './api.ts'

export interface Resource<T> {
  data: T | undefined
  error: Error | undefined
  loading: boolean
  reload: () => void
}

interface State<T> {
  path: string | null
  data?: T
  error?: Error
  loading: boolean
}

/**
 * GET a console API path and follow it as it changes. A reload keeps the old data on screen while it loads;
 * a different path does not (another key's numbers must never stand in for this one's), and a stale answer
 * never overwrites a newer one.
 */
export function useResource<T>(path: string | null): Resource<T> {
  const [state, setState] = useState<State<T>>({ path, loading: path !== null })
  const [version, setVersion] = useState(0)
  useEffect(() => {
    if (path === null) return
    const controller = new AbortController()
    setState((previous) => ({ path, data: previous.path === path ? previous.data : undefined, loading: true }))
    getJson<T>(path, controller.signal).then(
      (data) => setState({ path, data, loading: false }),
      (error: Error) => {
        if (error.name !== 'AbortError') setState({ path, error, loading: false })
      },
    )
    return () => controller.abort()
  }, [path, version])
  const reload = useCallback(() => setVersion((value) => value + 1), [])
  const current = state.path === path
  return { data: current ? state.data : undefined, error: current ? state.error : undefined, loading: !current || state.loading, reload }
}
