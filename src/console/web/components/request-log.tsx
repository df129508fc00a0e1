import { fractionWidth, Money } from './money.tsx'
import { queryString } from '../api.ts'
import { usePages } from '../use-pages.ts'
import { PagedLog } from './older-pages.tsx'
import { count, formatTime } from '../format.ts'
import type { RequestPage, RequestRow } from '../types.ts'
import { NumberHeading } from './states.tsx'

export interface RequestFilter {
  account_id?: string
  project_id?: string
  key_id?: string
  model?: string
  status?: string
  since?: string
  until?: string
}

/** The status and, for a refusal or failure, its reason in words on the page (not only in a tooltip). */
function StatusCell({ row }: { row: RequestRow }) {
  const kind = row.outcome === 'succeeded' ? 'ok' : row.status === 429 ? 'warn' : 'error'
  return (
    <>
      <span class={`badge badge-${kind}`}>{row.status}</span>
      {row.outcome !== 'succeeded' && (
        <span class="reason" data-testid="request-reason">
          {' '}
          {row.outcome}
          {row.error_type ? `: ${row.error_type.replaceAll('_', ' ')}` : ''}
        </span>
      )}
    </>
  )
}

/** The request log, newest first; "Load older" follows the keyset cursor, so page 1000 costs what page 1 does. */
export function RequestLog({ filter, showAccount }: { filter: RequestFilter; showAccount: boolean }) {
  const pages = usePages<RequestRow, RequestPage>(
    (before) => `/requests${queryString({ ...filter, before, limit: 50 })}`,
    (page) => page.requests,
    queryString({ ...filter }),
  )

  const costWidth = fractionWidth(pages.rows.map((row) => row.cost_usd))
  return (
    <PagedLog
      name="request-log"
      label="Request log"
      empty="No requests match these filters."
      head={
        <>
          <th scope="col">Time (UTC)</th>
          {showAccount && <th scope="col">Account</th>}
          <th scope="col">Key</th>
          <th scope="col">Model</th>
          <th scope="col">Status</th>
          <NumberHeading>Input</NumberHeading>
          <NumberHeading>Output</NumberHeading>
          <NumberHeading>Cost</NumberHeading>
          <NumberHeading>Latency</NumberHeading>
        </>
      }
      row={(row: RequestRow) => (
        <tr key={row.id}>
          <td class="nowrap" data-label="Time" title={row.request_id}>
            {formatTime(row.at).replace(' UTC', '')}
          </td>
          {showAccount && <td data-label="Account">{row.account ?? row.account_id}</td>}
          <td data-label="Key">
            <a href={`/console/keys/${encodeURIComponent(row.key_id)}`}>{row.key_name ?? `${row.key_prefix ?? row.key_id}…`}</a>
          </td>
          <td data-label="Model">
            {row.model || <span class="muted">refused before the model was read</span>}
            {row.operation !== 'chat' ? <span class="muted"> · {row.operation}</span> : null}
            {row.stream ? <span class="muted"> · stream</span> : null}
          </td>
          <td data-label="Status">
            <StatusCell row={row} />
          </td>
          <td class="number" data-label="Input tokens">
            {count(row.input_tokens)}
          </td>
          <td class="number" data-label="Output tokens">
            {count(row.output_tokens)}
          </td>
          <td class="number" data-label="Cost" data-testid="request-cost">
            <Money amount={row.cost_usd} width={costWidth} />
          </td>
          <td class="number" data-label="Latency">
            {count(row.latency_ms)} ms
          </td>
        </tr>
      )}
      pages={pages}
      loadingLabel="Loading requests…"
      more="Load older requests"
      end="That is every matching request."
    />
  )
}
