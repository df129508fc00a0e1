import { BalanceCard } from '../components/balance-card.tsx'
import { BalanceHistoryView } from '../components/balance-history.tsx'
import { PageHeader } from '../layout.tsx'
import type { PageProps } from '../routes.tsx'

export function Balance({ session }: PageProps) {
  const account = session.user.account!
  return (
    <>
      <PageHeader title={`Balance of ${account.name}`} />
      <BalanceCard accountId={account.id} />
      <p class="hint">To add credit, ask the gateway's operator.</p>
      <h2>History</h2>
      <BalanceHistoryView accountId={account.id} />
    </>
  )
}
