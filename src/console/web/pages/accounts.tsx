import { fractionWidth, Money } from '../components/money.tsx'
import { useState } from 'preact/hooks'
import { postJson } from '../api.ts'
import { CreateForm } from '../components/create-form.tsx'
import { TextField } from '../components/fields.tsx'
import { Empty, NumberHeading, Resolved, TableScroll } from '../components/states.tsx'
import { formatDate } from '../format.ts'
import { PageHeader } from '../layout.tsx'
import { navigate } from '../router.ts'
import type { Account } from '../types.ts'
import { useResource } from '../use-resource.ts'

function NewAccountForm() {
  const [name, setName] = useState('')
  const [balance, setBalance] = useState('')
  return (
    <CreateForm
      title="New account"
      submitLabel="Create account"
      onSubmit={async () => {
        const account = await postJson<Account>('/accounts', { name: name.trim(), balance_usd: balance.trim() || undefined })
        navigate(`/console/accounts/${account.id}`)
      }}
    >
      <TextField label="Account name" value={name} onValue={setName} required maxLength={64} hint="Letters, digits, . _ @ or -" />
      <TextField label="Opening balance (USD)" value={balance} onValue={setBalance} inputMode="decimal" placeholder="0.00" />
    </CreateForm>
  )
}

/** Every account with its balance; on the admin's overview and the accounts page. */
export function AccountsTable() {
  const accounts = useResource<Account[]>('/accounts')
  return (
    <Resolved resource={accounts} label="Loading accounts…">
      {(list) =>
        list.length === 0 ? (
          <Empty>
            <p>No accounts yet.</p>
            <p>
              <a href="/console/accounts">Create the first one</a>
            </p>
          </Empty>
        ) : (
          <TableScroll label="Accounts">
            <table class="stack" data-testid="accounts-table">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <NumberHeading>Balance</NumberHeading>
                  <NumberHeading>Available</NumberHeading>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {list.map((account) => (
                  <tr key={account.id}>
                    <td data-label="Name">
                      <a href={`/console/accounts/${account.id}`}>{account.name}</a>
                    </td>
                    <td class="number" data-label="Balance">
                      <Money amount={account.balance_usd} width={fractionWidth(list.map((item) => item.balance_usd))} />
                    </td>
                    <td class="number" data-label="Available">
                      <Money amount={account.available_usd} width={fractionWidth(list.map((item) => item.available_usd))} />
                    </td>
                    <td data-label="Created">{formatDate(account.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        )
      }
    </Resolved>
  )
}

export function Accounts() {
  return (
    <>
      <PageHeader title="Accounts" />
      <AccountsTable />
      <NewAccountForm />
    </>
  )
}
