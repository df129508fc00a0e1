import type { ComponentChildren } from 'preact'
import type { Pages } from '../use-pages.ts'
import { Empty, ErrorNotice, Loading, TableScroll } from './states.tsx'

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

interface PagedLogProps<T> extends OlderPagesProps<T> {
  /** Its class and test id, e.g. request-log; `label` names its scrolling region. */
  name: string
  label: string
  /** What is said instead of an empty table. */
  empty: string
  head: ComponentChildren
  row: (row: T) => ComponentChildren
}

/** A log read page by page, newest first: its table (or word that nothing matches) and the way to older pages. */
export function PagedLog<T>({ name, label, empty, head, row, ...paging }: PagedLogProps<T>) {
  const { rows, loading, error } = paging.pages
  if (!loading && !error && rows.length === 0)
    return (
      <Empty>
        <p>{empty}</p>
      </Empty>
    )
  return (
    <div class={name}>
      {rows.length > 0 && (
        <TableScroll label={label}>
          <table class="stack" data-testid={name}>
            <thead>
              <tr>{head}</tr>
            </thead>
            <tbody>{rows.map(row)}</tbody>
          </table>
        </TableScroll>
      )}
      <OlderPages {...paging} />
    </div>
  )
}
