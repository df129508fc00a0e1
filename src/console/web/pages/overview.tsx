import { BalanceCard } from '../components/balance-card.tsx'
import { can } from '../access.ts'
import { UsageSummaryView } from '../components/usage-summary.tsx'
import { PageHeader } from '../layout.tsx'
import { AccountsTable } from './accounts.tsx'
import type { PageProps } from '../routes.tsx'

/** The first page: an account's balance and last 30 days for its logins; for an admin, the whole gateway's. */
export function Overview({ session }: PageProps) {
  const account = session.user.account
  if (!account) {
    return (
      <>
        <PageHeader title="Overview">
          {can(session, 'users:read') && (
            <a class="button secondary" href="/console/logins">
              Logins
            </a>
          )}
          {can(session, 'accounts:create') && (
            <a class="button" href="/console/accounts">
              New account
            </a>
          )}
        </PageHeader>
        <h2>Accounts</h2>
        <AccountsTable />
        <h2>All accounts, last 30 days</h2>
        <UsageSummaryView query={{}} />
      </>
    )
  }
  return (
    <>
      <PageHeader title="Overview">
        {can(session, 'keys:write') && (
          <a class="button" href="/console/keys/new">
            Create key
          </a>
        )}
      </PageHeader>
      <BalanceCard accountId={account.id} />
      <h2>Last 30 days</h2>
      <UsageSummaryView query={{ account_id: account.id }} />
    </>
  )
}
