import { usd } from '../format.ts'
import type { Account } from '../types.ts'
import { useResource } from '../use-resource.ts'
import { Resolved } from './states.tsx'

/** Balance, what requests in flight have reserved, and what is available for new ones. */
export function BalanceCard({ accountId, version = 0 }: { accountId: number; version?: number }) {
  const resource = useResource<Account>(`/accounts/${accountId}?v=${version}`)
  return (
    <Resolved resource={resource} label="Loading the balance…">
      {(account) => (
        <section class="card balance-card" aria-label="Balance">
          <dl class="stats">
            <div class="stat stat-main">
              <dt>Balance</dt>
              <dd data-testid="balance">{usd(account.balance_usd)}</dd>
            </div>
            <div class="stat">
              <dt>Available</dt>
              <dd>{usd(account.available_usd)}</dd>
            </div>
            <div class="stat">
              <dt>Reserved by requests in flight</dt>
              <dd>{usd(account.reserved_usd)}</dd>
            </div>
          </dl>
        </section>
      )}
    </Resolved>
  )
}
