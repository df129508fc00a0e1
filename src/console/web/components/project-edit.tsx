import { useState } from 'preact/hooks'
import { addressListHint, readAddressList } from '../address-list.ts'
import { callApi } from '../api.ts'
import type { Project } from '../types.ts'
import { ConfirmDialog } from './confirm-dialog.tsx'
import { CreateForm } from './create-form.tsx'
import { TextField } from './fields.tsx'
import { ModelPicker } from './model-picker.tsx'

const text = (value: number | null) => (value === null ? '' : String(value))
const limitNumber = (value: string) => (value.trim() === '' ? null : Number(value))

/**
 * A project's name, models, shared limits and allowed addresses, changed in place (empty: no limit, any address).
 * Its keys follow from their next request; the server checks every field and keeps the audit row.
 */
export function ProjectEditForm({ project, models, onDone }: { project: Project; models: string[]; onDone: () => void }) {
  const [name, setName] = useState(project.name)
  const [chosen, setChosen] = useState<string[] | null>(project.models)
  const [rpm, setRpm] = useState(text(project.rpm))
  const [tpm, setTpm] = useState(text(project.tpm))
  const [concurrency, setConcurrency] = useState(text(project.concurrency))
  const [allowedIps, setAllowedIps] = useState(project.allowed_ips?.join(', ') ?? '')
  return (
    <CreateForm
      title={`Edit project ${project.name}`}
      submitLabel="Save project"
      onCancel={onDone}
      onSubmit={async () => {
        await callApi('PATCH', `/projects/${project.id}`, {
          name,
          models: chosen,
          rpm: limitNumber(rpm),
          tpm: limitNumber(tpm),
          concurrency: limitNumber(concurrency),
          allowed_ips: readAddressList(allowedIps),
        })
        onDone()
      }}
    >
      <TextField label="Name" value={name} onValue={setName} required maxLength={100} />
      <TextField label="Requests per minute, shared" value={rpm} onValue={setRpm} inputMode="numeric" hint="Empty: no shared limit" />
      <TextField label="Tokens per minute, shared" value={tpm} onValue={setTpm} inputMode="numeric" />
      <TextField label="Concurrent requests, shared" value={concurrency} onValue={setConcurrency} inputMode="numeric" />
      <TextField
        label="Allowed addresses"
        placeholder="any address"
        value={allowedIps}
        onValue={setAllowedIps}
        hint={`${addressListHint} A key's own list applies too: an address must pass both.`}
      />
      <ModelPicker models={models} value={chosen} onValue={setChosen} />
    </CreateForm>
  )
}

/** "Delete" and its confirmation: the project's keys stay, in no project, and its budgets go with it. */
export function DeleteProjectButton({ project, onDeleted }: { project: Project; onDeleted: () => void }) {
  const [asking, setAsking] = useState(false)
  return (
    <>
      <button type="button" class="button small danger" onClick={() => setAsking(true)} aria-label={`Delete project ${project.name}`}>
        Delete
      </button>
      {asking && (
        <ConfirmDialog
          title="Delete this project?"
          confirmLabel="Delete project"
          onClose={() => setAsking(false)}
          onConfirm={async () => {
            await callApi('DELETE', `/projects/${project.id}`)
            onDeleted()
          }}
        >
          <p>
            <strong>{project.name}</strong>'s {project.keys === 1 ? 'key stays' : `${project.keys} keys stay`}, in no project, without its
            shared limits or address rules. Its budgets are deleted with it.
          </p>
        </ConfirmDialog>
      )}
    </>
  )
}
