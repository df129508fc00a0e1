import { Checkbox } from './fields.tsx'

/** "All models" (null: also models added to the config later) or an explicit subset of the configured ones. */
export function ModelPicker({
  models,
  value,
  onValue,
  error,
}: {
  models: string[]
  value: string[] | null
  onValue: (value: string[] | null) => void
  error?: string
}) {
  const chosen = new Set(value ?? models)
  const toggle = (model: string, on: boolean) => {
    const next = new Set(chosen)
    if (on) next.add(model)
    else next.delete(model)
    onValue(models.filter((item) => next.has(item)))
  }
  return (
    <fieldset class={`field models${error ? ' field-invalid' : ''}`}>
      <legend>Permitted models</legend>
      <Checkbox
        label="All models, including ones added later"
        checked={value === null}
        onChecked={(all) => onValue(all ? null : [...models])}
      />
      {value !== null && (
        <div class="model-list">
          {models.map((model) => (
            <Checkbox key={model} label={model} checked={chosen.has(model)} onChecked={(on) => toggle(model, on)} />
          ))}
        </div>
      )}
      {error && (
        <p class="field-error" role="alert">
          {error}
        </p>
      )}
    </fieldset>
  )
}
