import { useState } from 'preact/hooks'
import { addressListHint, readAddressList } from '../address-list.ts'
import { postJson } from '../api.ts'
import type { Project } from '../types.ts'
import { CreateForm } from './create-form.tsx'
import { BudgetFields } from './budget-fields.tsx'
import { SelectField, TextField } from './fields.tsx'

// The Budgets page's two creation forms (pages/budgets.tsx): a project, and a budget for the account or a project.

export function NewProjectForm({ accountId, onCreated }: { accountId: number; onCreated: () => void }) {
  const [name, setName] = useState('')
  const [rpm, setRpm] = useState('')
  const [allowedIps, setAllowedIps] = useState('')
  return (
    <CreateForm
      title="New project"
      submitLabel="Create project"
      onSubmit={async () => {
        await postJson('/projects', {
          account_id: accountId,
          name,
          rpm: rpm ? Number(rpm) : null,
          allowed_ips: readAddressList(allowedIps),
        })
        setName('')
        setRpm('')
        setAllowedIps('')
        onCreated()
      }}
    >
      <TextField label="Name" value={name} onValue={setName} required maxLength={100} />
      <TextField label="Requests per minute, shared" value={rpm} onValue={setRpm} inputMode="numeric" hint="Empty: no shared limit" />
      <TextField label="Allowed addresses" placeholder="any address" value={allowedIps} onValue={setAllowedIps} hint={addressListHint} />
    </CreateForm>
  )
}

export function NewBudgetForm({ accountId, projects, onCreated }: { accountId: number; projects: Project[]; onCreated: () => void }) {
  const [target, setTarget] = useState('account')
  const [amount, setAmount] = useState('')
  const [period, setPeriod] = useState('month')
  const [zone, setZone] = useState('UTC')
  return (
    <CreateForm
      title="New budget"
      submitLabel="Create budget"
      onSubmit={async () => {
        const scope = target === 'account' ? { scope: 'account' } : { scope: 'project', project_id: Number(target) }
        await postJson('/budgets', { account_id: accountId, ...scope, amount_usd: amount, period, time_zone: zone })
        setAmount('')
        onCreated()
      }}
    >
      <SelectField label="For" value={target} onValue={setTarget}>
        <option value="account">Whole account</option>
        {projects.map((project) => (
          <option key={project.id} value={String(project.id)}>
            Project {project.name}
          </option>
        ))}
      </SelectField>
      <BudgetFields amount={amount} setAmount={setAmount} period={period} setPeriod={setPeriod} zone={zone} setZone={setZone} />
    </CreateForm>
  )
}
