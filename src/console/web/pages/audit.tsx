import { queryString } from '../api.ts'
import { AccountSelect } from '../components/account-select.tsx'
import { AuditLog } from '../components/audit-log.tsx'
import { SelectField, TextField } from '../components/fields.tsx'
import { DayRange, FilterActions } from '../components/filter-form.tsx'
import { seesEveryAccount } from '../access.ts'
import { PageHeader } from '../layout.tsx'
import type { PageProps } from '../routes.tsx'
import { useUrlFilters } from '../use-url-filters.ts'

const objects: [string, string][] = [
  ['', 'Any object'],
  ['account', 'Accounts'],
  ['key', 'API keys'],
  ['user', 'Logins and sign-ins'],
  ['admin-token', 'Admin tokens'],
  ['task', 'Batches'],
  ['config', 'Config reloads'],
]

/** Who changed what: filters live in the URL (bookmarkable, shareable), and the CSV has exactly what is on screen. */
export function Audit({ session, search }: PageProps) {
  const everyAccount = seesEveryAccount(session)
  const { applied, draft, set, apply, range, invalidRange } = useUrlFilters(search, ['account', 'actor', 'object', 'id'], '/console/audit')
  const filter = {
    account_id: everyAccount ? applied.account || undefined : undefined,
    actor: applied.actor || undefined,
    object_type: applied.object || undefined,
    object_id: applied.id || undefined,
    ...range,
  }
  return (
    <>
      <PageHeader title="Audit log" />
      <p class="hint">
        Every change{everyAccount ? '' : ` to ${session.user.account?.name ?? 'your account'}`}: who made it, when, from where, and what it
        changed. Secrets never appear; a replaced one reads "rotated".
      </p>
      <form class="card filters-form" onSubmit={apply} aria-label="Filters">
        <div class="grid">
          {everyAccount && <AccountSelect value={draft.account} empty="All accounts and the gateway" onValue={set('account')} />}
          <TextField
            label="Actor"
            value={draft.actor}
            onValue={set('actor')}
            hint="A login's name, admin-token:NAME or cli:USER"
            maxLength={200}
            autoCapitalize="none"
            spellcheck={false}
          />
          <SelectField label="Object" value={draft.object} onValue={set('object')}>
            {objects.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </SelectField>
          <TextField label="Object ID" value={draft.id} onValue={set('id')} maxLength={200} autoCapitalize="none" spellcheck={false} />
          <DayRange from={draft.from} to={draft.to} onFrom={set('from')} onTo={set('to')} error={invalidRange} />
        </div>
        <FilterActions invalid={!!invalidRange} reset="/console/audit" />
      </form>
      <div class="section-header">
        <h2>Changes</h2>
        <a class="button secondary small" data-testid="download-audit-csv" download href={`/console/api/audit/csv${queryString(filter)}`}>
          Download CSV
        </a>
      </div>
      <AuditLog filter={filter} />
    </>
  )
}
