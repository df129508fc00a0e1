import { queryString } from '../api.ts'
import { formatTime } from '../format.ts'
import type { AuditEntry, AuditPage, AuditValue } from '../types.ts'
import { usePages } from '../use-pages.ts'
import { PagedLog } from './older-pages.tsx'

export interface AuditFilter {
  account_id?: string
  actor?: string
  object_type?: string
  object_id?: string
  since?: string
  until?: string
}

const show = (value: AuditValue | undefined) =>
  value === undefined || value === null ? '—' : Array.isArray(value) ? value.join(', ') : String(value)

/** Each changed field on its own line: `rpm: 60 → 100`, a new object's fields as they are, a secret only as "rotated". */
function Changes({ entry }: { entry: AuditEntry }) {
  const { before, after } = entry
  const names = [...new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])]
  if (names.length === 0) return <span class="muted">—</span>
  return (
    <ul class="changes">
      {names.map((name) => (
        <li key={name}>
          <span class="muted">{name}:</span>{' '}
          {before && name in before && after && name in after ? (
            <>
              {show(before[name])} → {show(after[name])}
            </>
          ) : before && name in before ? (
            <del>{show(before[name])}</del>
          ) : (
            show(after?.[name])
          )}
        </li>
      ))}
    </ul>
  )
}

/** A login is plainly a person; `cli:root`, `admin-token:deploy`, `anonymous` say what they are already. */
const namesItsKind = ({ kind, name }: AuditEntry['actor']) => kind === 'user' || name === kind || name.startsWith(`${kind}:`)

/** The object a row is about, linked where the console has a page for it. */
function ObjectCell({ entry }: { entry: AuditEntry }) {
  const id = entry.object_id
  if (id === null) return <>{entry.object_type}</>
  const href =
    entry.object_type === 'key'
      ? `/console/keys/${encodeURIComponent(id)}`
      : entry.object_type === 'task'
        ? `/console/tasks/${encodeURIComponent(id)}`
        : undefined
  return (
    <>
      {entry.object_type} {href ? <a href={href}>{id}</a> : <code>{id}</code>}
    </>
  )
}

/** The audit log, newest first; "Load older" follows the keyset cursor. */
export function AuditLog({ filter }: { filter: AuditFilter }) {
  const pages = usePages<AuditEntry, AuditPage>(
    (before) => `/audit${queryString({ ...filter, before, limit: 50 })}`,
    (page) => page.entries,
    queryString({ ...filter }),
  )
  return (
    <PagedLog
      name="audit-log"
      label="Audit log"
      empty="No changes match these filters."
      head={
        <>
          <th scope="col">Time (UTC)</th>
          <th scope="col">Actor</th>
          <th scope="col">Address</th>
          <th scope="col">Action</th>
          <th scope="col">Object</th>
          <th scope="col">Changes</th>
        </>
      }
      row={(entry: AuditEntry) => (
        <tr key={entry.id}>
          <td class="nowrap" data-label="Time">
            {formatTime(entry.at).replace(' UTC', '')}
          </td>
          <td data-label="Actor">
            {entry.actor.name}
            {!namesItsKind(entry.actor) && <span class="muted"> · {entry.actor.kind}</span>}
          </td>
          <td data-label="Address">{entry.actor.address ?? <span class="muted">—</span>}</td>
          <td data-label="Action">
            <span class={`badge ${entry.action.endsWith('-failed') ? 'badge-error' : 'badge-info'}`}>{entry.action}</span>
          </td>
          <td data-label="Object">
            <ObjectCell entry={entry} />
          </td>
          <td data-label="Changes">
            <Changes entry={entry} />
          </td>
        </tr>
      )}
      pages={pages}
      loadingLabel="Loading the audit log…"
      more="Load older changes"
      end="That is every matching change."
    />
  )
}
