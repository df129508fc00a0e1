import { fractionWidth, Money } from '../components/money.tsx'
import { queryString } from '../api.ts'
import { can } from '../access.ts'
import { AccountSelect } from '../components/account-select.tsx'
import { RevokeKeyButton } from '../components/revoke-key.tsx'
import { Empty, NumberHeading, Resolved, StatusBadge, TableScroll } from '../components/states.tsx'
import { formatTime } from '../format.ts'
import { PageHeader } from '../layout.tsx'
import { navigate } from '../router.ts'
import type { PageProps } from '../routes.tsx'
import type { Key } from '../types.ts'
import { useResource } from '../use-resource.ts'

export function Keys({ session, search }: PageProps) {
  const admin = session.user.role === 'admin'
  const writes = can(session, 'keys:write')
  const account = search.get('account') ?? ''
  const keys = useResource<Key[]>(`/keys${queryString({ account_id: admin ? account : undefined })}`)
  return (
    <>
      <PageHeader title="API keys">
        {writes && (
          <a class="button" href={`/console/keys/new${queryString({ account: admin ? account : undefined })}`}>
            Create key
          </a>
        )}
      </PageHeader>
      {admin && (
        <div class="filters">
          <AccountSelect
            value={account}
            empty="All accounts"
            onValue={(value) => navigate(`/console/keys${queryString({ account: value })}`, { replace: true })}
          />
        </div>
      )}
      <Resolved resource={keys} label="Loading keys…">
        {(list) =>
          list.length === 0 ? (
            <Empty>
              <p>No keys yet.</p>
              <p class="hint">A key is what an application sends as its API key.{writes ? ' Create one to start making requests.' : ''}</p>
            </Empty>
          ) : (
            <TableScroll label="API keys">
              <table class="stack" data-testid="keys-table">
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Key</th>
                    {admin && <th scope="col">Account</th>}
                    <th scope="col">Status</th>
                    <th scope="col">Models</th>
                    <NumberHeading>Spent</NumberHeading>
                    <th scope="col">Created (UTC)</th>
                    <th scope="col">Last used (UTC)</th>
                    <th scope="col">
                      <span class="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {list.map((key) => (
                    <tr key={key.id} data-key-id={key.id}>
                      <td data-label="Name">
                        <a href={`/console/keys/${encodeURIComponent(key.id)}`}>{key.name ?? 'Unnamed key'}</a>
                      </td>
                      <td class="nowrap" data-label="Key">
                        <code>{key.prefix}…</code>
                      </td>
                      {admin && <td data-label="Account">{key.account}</td>}
                      <td data-label="Status">
                        <StatusBadge status={key.status} />
                      </td>
                      <td data-label="Models">{key.models ? key.models.join(', ') : <span class="muted">all</span>}</td>
                      <td class="number" data-label="Spent">
                        <Money amount={key.spent_usd} width={fractionWidth(list.map((item) => item.spent_usd))} />
                      </td>
                      <td class="nowrap" data-label="Created">
                        {formatTime(key.created_at).replace(' UTC', '')}
                      </td>
                      <td class="nowrap" data-label="Last used">
                        {key.last_used_at ? formatTime(key.last_used_at).replace(' UTC', '') : <span class="muted">never</span>}
                      </td>
                      <td class="row-actions">
                        {writes && key.status === 'active' && <RevokeKeyButton apiKey={key} small onRevoked={keys.reload} />}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableScroll>
          )
        }
      </Resolved>
      <p class="hint" data-testid="key-prefix-note">
        Key shows a secret's first characters, kept to recognise it; the secret itself is stored only as a hash and was shown once, when it
        was made.
      </p>
    </>
  )
}
