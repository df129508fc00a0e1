import { can } from '../access.ts'
import { queryString } from '../api.ts'
import { AccountSelect } from '../components/account-select.tsx'
import { SelectField } from '../components/fields.tsx'
import { DayRange, FilterActions } from '../components/filter-form.tsx'
import { RequestLog } from '../components/request-log.tsx'
import { UsageSummaryView } from '../components/usage-summary.tsx'
import { keyLabel } from '../format.ts'
import { PageHeader } from '../layout.tsx'
import type { PageProps } from '../routes.tsx'
import { useUrlFilters } from '../use-url-filters.ts'
import type { Key, Project } from '../types.ts'
import { useResource } from '../use-resource.ts'

const statuses: [string, string][] = [
  ['', 'Any status'],
  ['ok', 'Succeeded'],
  ['error', 'Failed (4xx and 5xx)'],
  ['4xx', 'Client errors (4xx)'],
  ['429', 'Rate limited (429)'],
  ['5xx', 'Server errors (5xx)'],
]

/** Filters live in the URL, so a filtered view can be bookmarked, shared and reached with the back button. */
export function Usage({ session, search }: PageProps) {
  const admin = session.user.role === 'admin'
  const { applied, draft, setDraft, set, apply, range, invalidRange } = useUrlFilters(
    search,
    ['account', 'project', 'key', 'model', 'status'],
    '/console/usage',
  )
  const keys = useResource<Key[]>(`/keys${queryString({ account_id: admin ? draft.account : undefined })}`)
  // Projects are offered where the login may read them (budgets:read), as the key form does.
  const projects = useResource<Project[]>(
    can(session, 'budgets:read') ? `/projects${queryString({ account_id: admin ? draft.account : undefined })}` : null,
  )
  const models = [...new Set([...session.models, ...(applied.model ? [applied.model] : [])])]
  // Every filter applies to the summary and the request log alike: a summary filtered to 429s counts only those.
  const scope = {
    account_id: admin ? applied.account || undefined : session.user.account?.id,
    project_id: applied.project || undefined,
    key_id: applied.key || undefined,
    model: applied.model || undefined,
    status: applied.status || undefined,
  }
  return (
    <>
      <PageHeader title="Usage" />
      <form class="card filters-form" onSubmit={apply} aria-label="Filters">
        <div class="grid">
          {admin && (
            <AccountSelect
              value={draft.account}
              empty="All accounts"
              onValue={(account) => setDraft({ ...draft, account, project: '', key: '' })}
            />
          )}
          {!!projects.data?.length && (
            <SelectField label="Project" value={draft.project} onValue={set('project')}>
              <option value="">All projects</option>
              {projects.data.map((project) => (
                <option key={project.id} value={String(project.id)}>
                  {project.name}
                </option>
              ))}
            </SelectField>
          )}
          <SelectField label="Key" value={draft.key} onValue={set('key')}>
            <option value="">All keys</option>
            {keys.data?.map((key) => (
              <option key={key.id} value={key.id}>
                {keyLabel(key)}
              </option>
            ))}
          </SelectField>
          <SelectField label="Model" value={draft.model} onValue={set('model')}>
            <option value="">All models</option>
            {models.map((model) => (
              <option key={model} value={model}>
                {model}
              </option>
            ))}
          </SelectField>
          <SelectField label="Status" value={draft.status} onValue={set('status')}>
            {statuses.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </SelectField>
          <DayRange from={draft.from} to={draft.to} onFrom={set('from')} onTo={set('to')} error={invalidRange} />
        </div>
        <FilterActions invalid={!!invalidRange} reset="/console/usage" />
      </form>
      <h2>Summary</h2>
      <UsageSummaryView query={{ ...scope, ...range }} showKeys={!applied.key} />
      <div class="section-header">
        <h2>Requests</h2>
        <a
          class="button secondary small"
          data-testid="download-csv"
          download
          href={`/console/api/requests/csv${queryString({ ...scope, ...range, status: applied.status || undefined })}`}
        >
          Download CSV
        </a>
      </div>
      <RequestLog
        filter={{ ...scope, ...range, status: applied.status || undefined, account_id: scope.account_id?.toString() }}
        showAccount={admin && !applied.account}
      />
    </>
  )
}
