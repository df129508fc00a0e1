import type { Pages } from '../use-pages.ts'
import { ErrorNotice, Loading } from './states.tsx'

interface OlderPagesProps<T> {
  pages: Pages<T>
  /** What the spinner says, the button reads and the end of the list says: the log's own words. */
  loadingLabel: string
  more: string
  end?: string
}

/** Below a keyset-paged log: a failed page with its retry (the first page again if none arrived), a spinner, "Load older …", or word that nothing is left. */
export function OlderPages<T>({ pages, loadingLabel, more, end }: OlderPagesProps<T>) {
  const { rows, next, loading, error, load } = pages
  return (
    <>
      {error && <ErrorNotice error={error} retry={() => load(rows.length ? next : null)} />}
      {loading && <Loading label={loadingLabel} />}
      {!loading && next && (
        <button type="button" class="button secondary" onClick={() => load(next)}>
          {more}
        </button>
      )}
      {end && !loading && !next && rows.length > 0 && <p class="hint">{end}</p>}
    </>
  )
}
