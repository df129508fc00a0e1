import { useEffect, useState } from 'preact/hooks'
import { getJson } from './api.ts'

/** A list read page by page along a keyset cursor: what a "Load older" table needs. */
export interface Pages<T> {
  rows: T[]
  next: string | null
  loading: boolean
  error: Error | undefined
  /** Read the page after `before` (null: start again from the newest). */
  load(before: string | null): void
}

/**
 * The first page whenever `query` changes (an earlier read still in flight is abandoned), later pages on request.
 * `path(before)` is the API path of a page; `rowsOf` picks its rows out of the answer, which carries `next`.
 */
export function usePages<T, Page extends { next: string | null }>(
  path: (before: string | null) => string,
  rowsOf: (page: Page) => T[],
  query: string,
): Pages<T> {
  const [rows, setRows] = useState<T[]>([])
  const [next, setNext] = useState<string | null>(null)
  const [loading, setLoading] = useState(true)
  const [error, setError] = useState<Error>()

  const load = async (before: string | null, signal?: AbortSignal) => {
    setLoading(true)
    setError(undefined)
    try {
      const page = await getJson<Page>(path(before), signal)
      setRows((previous) => (before ? [...previous, ...rowsOf(page)] : rowsOf(page)))
      setNext(page.next)
    } catch (failure) {
      if ((failure as Error).name === 'AbortError') return
      setError(failure as Error)
    }
    setLoading(false)
  }

  useEffect(() => {
    const controller = new AbortController()
    setRows([])
    setNext(null)
    void load(null, controller.signal)
    return () => controller.abort()
  }, [query])

  return { rows, next, loading, error, load: (before) => void load(before) }
}
