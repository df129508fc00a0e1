import type { Account } from '../types.ts'
import { useResource } from '../use-resource.ts'
import { SelectField } from './fields.tsx'

/** An admin's choice of account; `empty` labels the no-choice option ("All accounts", "Choose an account…"). */
export function AccountSelect({
  value,
  onValue,
  empty,
  hint,
}: {
  value: string
  onValue: (value: string) => void
  empty: string
  hint?: string
}) {
  const accounts = useResource<Account[]>('/accounts')
  return (
    <SelectField label="Account" value={value} onValue={onValue} hint={hint}>
      <option value="">{accounts.error ? 'Accounts could not be loaded' : empty}</option>
      {accounts.data?.map((account) => (
        <option key={account.id} value={String(account.id)}>
          {account.name}
        </option>
      ))}
    </SelectField>
  )
}
