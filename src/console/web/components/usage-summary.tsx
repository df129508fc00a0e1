import { fractionWidth, Money } from './money.tsx'
import { queryString } from '../api.ts'
import { count, usd } from '../format.ts'
import type { Group, UsageSummary } from '../types.ts'
import { useResource } from '../use-resource.ts'
import { DailyChart } from './daily-chart.tsx'
import { Empty, NumberHeading, Resolved, TableScroll } from './states.tsx'

export interface UsageQuery {
  account_id?: string | number
  project_id?: string
  key_id?: string
  model?: string
  status?: string
  since?: string
  until?: string
}

function Stat({ label, value }: { label: string; value: string }) {
  return (
    <div class="stat">
      <dt>{label}</dt>
      <dd>{value}</dd>
    </div>
  )
}

function GroupTable({ title, groups, linkPrefix }: { title: string; groups: Group[]; linkPrefix?: string }) {
  if (groups.length === 0) return null
  const width = fractionWidth(groups.map((group) => group.spent_usd))
  return (
    <section class="panel">
      <h3>{title}</h3>
      <TableScroll label={title}>
        <table class="stack">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <NumberHeading>Answered</NumberHeading>
              <NumberHeading>Refused</NumberHeading>
              <NumberHeading>Failed</NumberHeading>
              <NumberHeading>Input tokens</NumberHeading>
              <NumberHeading>Output tokens</NumberHeading>
              <NumberHeading>Spend</NumberHeading>
            </tr>
          </thead>
          <tbody>
            {groups.map((group) => (
              <tr key={group.id}>
                <td data-label="Name">
                  {linkPrefix && group.id ? (
                    <a href={`${linkPrefix}${encodeURIComponent(group.id)}`}>{group.label}</a>
                  ) : (
                    <span class={group.id === '' ? 'muted' : undefined}>{group.label}</span>
                  )}
                </td>
                <td class="number" data-label="Answered">
                  {count(group.succeeded)}
                </td>
                <td class="number" data-label="Refused">
                  {count(group.refused)}
                </td>
                <td class="number" data-label="Failed">
                  {count(group.failed)}
                </td>
                <td class="number" data-label="Input tokens">
                  {count(group.input_tokens)}
                </td>
                <td class="number" data-label="Output tokens">
                  {count(group.output_tokens)}
                </td>
                <td class="number" data-label="Spend">
                  <Money amount={group.spent_usd} width={width} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
    </section>
  )
}

/** Totals, daily charts and breakdowns for one scope (everything, an account, a key) over a range of days. */
export function UsageSummaryView({ query, showKeys = true }: { query: UsageQuery; showKeys?: boolean }) {
  const resource = useResource<UsageSummary>(`/usage${queryString({ ...query })}`)
  return (
    <Resolved resource={resource} label="Loading usage…">
      {(summary) => (
        <div class="usage-summary" data-testid="usage-summary">
          <p class="range">
            {summary.since.slice(0, 10)} to {new Date(Date.parse(summary.until) - 1).toISOString().slice(0, 10)} (UTC)
          </p>
          <dl
            class="stats"
            title="Answered: a reply was sent. Refused: turned down before an answer (a limit, a bad field, a model not permitted, an empty balance). Failed: the upstream or the gateway failed, or the client left mid-answer."
          >
            <Stat label="Spend" value={usd(summary.totals.spent_usd)} />
            <Stat label="Answered" value={count(summary.totals.succeeded)} />
            <Stat label="Refused" value={count(summary.totals.refused)} />
            <Stat label="Failed" value={count(summary.totals.failed)} />
            <Stat label="Input tokens" value={count(summary.totals.input_tokens)} />
            <Stat label="Output tokens" value={count(summary.totals.output_tokens)} />
          </dl>
          {summary.totals.requests === 0 ? (
            <Empty>
              <p>No requests in this period yet.</p>
              <p class="hint">Requests made with an API key show up here within a second or two.</p>
            </Empty>
          ) : (
            <>
              <div class="charts">
                <DailyChart days={summary.daily} totals={summary.totals} kind="spend" title="Spend per day" />
                <DailyChart days={summary.daily} totals={summary.totals} kind="tokens" title="Tokens per day" />
              </div>
              <GroupTable title="By model" groups={summary.by_model} />
              {/* Only once there is more than one kind of call (chat and embeddings): one row would say nothing. */}
              {summary.by_operation.length > 1 && <GroupTable title="By operation" groups={summary.by_operation} />}
              {summary.by_account && <GroupTable title="By account" groups={summary.by_account} linkPrefix="/console/accounts/" />}
              {/* Only where keys are grouped into projects: a gateway without them shows nothing new. */}
              {showKeys && summary.by_project.length > 0 && <GroupTable title="By project" groups={summary.by_project} />}
              {showKeys && <GroupTable title="By key" groups={summary.by_key} linkPrefix="/console/keys/" />}
            </>
          )}
        </div>
      )}
    </Resolved>
  )
}
