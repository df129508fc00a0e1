import type { ComponentChildren } from 'preact'
import { ApiError } from '../api.ts'

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p class="state state-loading" role="status" aria-live="polite">
      <span class="spinner" aria-hidden="true" />
      {label}
    </p>
  )
}

export function ErrorNotice({ error, retry }: { error: Error; retry?: () => void }) {
  // Retrying cannot help with a refusal or something that does not exist; it can with a network or server fault.
  const retryable = !(error instanceof ApiError) || error.status === 0 || error.status >= 500
  return (
    <div class="state state-error" role="alert">
      <p>{error.message}</p>
      {retry && retryable && (
        <button type="button" class="button secondary" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  )
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <div class="state state-empty">{children}</div>
}

/** Loading, error or the content, for anything fetched with useResource; `missing` replaces the error on a 404. */
export function Resolved<T>({
  resource,
  children,
  label,
  missing,
}: {
  resource: { data: T | undefined; error: Error | undefined; reload: () => void }
  children: (data: T) => ComponentChildren
  label?: string
  missing?: ComponentChildren
}) {
  if (resource.error instanceof ApiError && resource.error.status === 404 && missing) return <>{missing}</>
  if (resource.error) return <ErrorNotice error={resource.error} retry={resource.reload} />
  if (resource.data === undefined) return <Loading label={label} />
  return <>{children(resource.data)}</>
}

export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge badge-${status}`}>{status}</span>
}

/** Wide tables scroll sideways inside this on narrow screens; it is focusable so the keyboard can scroll it too. */
export function TableScroll({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <div class="table-scroll" tabIndex={0} role="region" aria-label={label}>
      {children}
    </div>
  )
}

/** A column heading over numbers: right-aligned like its cells, so digits line up under it. */
export function NumberHeading({ children }: { children: ComponentChildren }) {
  return (
    <th scope="col" class="number">
      {children}
    </th>
  )
}
