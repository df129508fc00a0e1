import { useState } from 'preact/hooks'
import { can } from '../access.ts'
import { postJson } from '../api.ts'
import { BalanceCard } from '../components/balance-card.tsx'
import { BalanceHistoryView } from '../components/balance-history.tsx'
import { CreateForm } from '../components/create-form.tsx'
import { TextField } from '../components/fields.tsx'
import { LoginList } from '../components/login-list.tsx'
import { Empty, Resolved } from '../components/states.tsx'
import { PageHeader } from '../layout.tsx'
import type { PageProps } from '../routes.tsx'
import type { Account } from '../types.ts'
import { useResource } from '../use-resource.ts'

function CreditForm({ account, onCredited }: { account: Account; onCredited: () => void }) {
  const [amount, setAmount] = useState('')
  const [note, setNote] = useState('')
  return (
    <CreateForm
      title="Add credit"
      submitLabel="Add to balance"
      onSubmit={async () => {
        await postJson(`/accounts/${account.id}/credits`, { amount_usd: amount.trim(), note: note.trim() })
        setAmount('')
        setNote('')
        onCredited()
      }}
    >
      <TextField
        label="Amount (USD)"
        value={amount}
        onValue={setAmount}
        inputMode="decimal"
        required
        placeholder="e.g. 50.00"
        hint="A negative amount removes money (never below zero)."
      />
      <TextField
        label="Note"
        value={note}
        onValue={setNote}
        required
        maxLength={200}
        placeholder="e.g. invoice 2026-031"
        hint="Kept in the ledger with your name."
      />
    </CreateForm>
  )
}

/** An operator's view of one account: balance and credit, history, logins, and links to its keys and usage. */
export function AccountDetail({ session, params }: PageProps) {
  const resource = useResource<Account>(`/accounts/${encodeURIComponent(params.id!)}`)
  const [version, setVersion] = useState(0)
  return (
    <Resolved
      resource={resource}
      label="Loading the account…"
      missing={
        <>
          <PageHeader title="Account not found" />
          <Empty>
            <p>There is no account with this ID.</p>
            <p>
              <a href="/console/accounts">Back to accounts</a>
            </p>
          </Empty>
        </>
      }
    >
      {(account) => (
        <>
          <PageHeader title={account.name}>
            <a class="button secondary" href={`/console/keys?account=${account.id}`}>
              Keys
            </a>
            <a class="button secondary" href={`/console/usage?account=${account.id}`}>
              Usage
            </a>
            {can(session, 'keys:write') && (
              <a class="button" href={`/console/keys/new?account=${account.id}`}>
                Create key
              </a>
            )}
          </PageHeader>
          <BalanceCard accountId={account.id} version={version} />
          {can(session, 'accounts:credit') && <CreditForm account={account} onCredited={() => setVersion((value) => value + 1)} />}
          <h2>History</h2>
          <BalanceHistoryView accountId={account.id} version={version} />
          {can(session, 'users:read') && (
            <>
              <h2>Logins</h2>
              <LoginList account={account} session={session} />
            </>
          )}
        </>
      )}
    </Resolved>
  )
}
