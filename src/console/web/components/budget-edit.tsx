import { useState } from 'preact/hooks'
import { callApi } from '../api.ts'
import type { Budget } from '../types.ts'
import { CreateForm } from './create-form.tsx'
import { BudgetFields } from './budget-fields.tsx'

/** A budget's amount, period and time zone, changed in place; what it applies to stays (delete it and make another). */
export function BudgetEditForm({ budget, label, onDone }: { budget: Budget; label: string; onDone: () => void }) {
  const [amount, setAmount] = useState(budget.amount_usd)
  const [period, setPeriod] = useState(budget.period)
  const [zone, setZone] = useState(budget.time_zone)
  return (
    <CreateForm
      title={`Edit budget: ${label}`}
      submitLabel="Save budget"
      onCancel={onDone}
      onSubmit={async () => {
        await callApi('PATCH', `/budgets/${budget.id}`, { amount_usd: amount, period, time_zone: zone })
        onDone()
      }}
    >
      <BudgetFields amount={amount} setAmount={setAmount} period={period} setPeriod={setPeriod} zone={zone} setZone={setZone} />
    </CreateForm>
  )
}
