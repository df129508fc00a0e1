import type { ComponentChildren } from 'preact'
import { useId } from 'preact/hooks'

interface InputProps {
  label: string
  value: string
  onValue: (value: string) => void
  hint?: string
  error?: string
  type?: 'text' | 'password' | 'number' | 'date'
  required?: boolean
  autoFocus?: boolean
  autoComplete?: string
  autoCapitalize?: 'none' | 'off'
  spellcheck?: boolean
  inputMode?: 'numeric' | 'decimal' | 'url'
  min?: number
  step?: number
  maxLength?: number
  placeholder?: string
}

/** A labelled input; its hint and error are tied to it with aria-describedby so screen readers announce them. */
export function TextField({ label, value, onValue, hint, error, ...rest }: InputProps) {
  const id = useId()
  const described = [hint && `${id}-hint`, error && `${id}-error`].filter(Boolean).join(' ') || undefined
  return (
    <div class={`field${error ? ' field-invalid' : ''}`}>
      <label for={id}>{label}</label>
      <input
        id={id}
        value={value}
        onInput={(event) => onValue(event.currentTarget.value)}
        aria-invalid={error ? true : undefined}
        aria-describedby={described}
        // Preact 11 types `type` as a discriminated union that a pass-through prop cannot satisfy statically.
        {...(rest as object)}
      />
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {error && (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  )
}

export function SelectField({
  label,
  value,
  onValue,
  children,
  hint,
}: {
  label: string
  value: string
  onValue: (value: string) => void
  children: ComponentChildren
  hint?: string
}) {
  const id = useId()
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select
        id={id}
        value={value}
        onChange={(event) => onValue(event.currentTarget.value)}
        aria-describedby={hint ? `${id}-hint` : undefined}
      >
        {children}
      </select>
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
    </div>
  )
}

export function Checkbox({
  label,
  checked,
  onChecked,
  disabled,
}: {
  label: string
  checked: boolean
  onChecked: (checked: boolean) => void
  disabled?: boolean
}) {
  return (
    <label class="checkbox">
      <input type="checkbox" checked={checked} disabled={disabled} onChange={(event) => onChecked(event.currentTarget.checked)} />
      <span>{label}</span>
    </label>
  )
}

/** A form-level error (the server's message), announced when it appears. */
export function FormError({ error }: { error: Error | undefined }) {
  if (!error) return null
  return (
    <p class="form-error" role="alert">
      {error.message}
    </p>
  )
}

/** A whole number of at least one (a rate limit, a number of days): a numeric keypad on phones. */
export function CountField(props: Omit<InputProps, 'type' | 'min' | 'step' | 'inputMode'>) {
  return <TextField type="number" min={1} step={1} inputMode="numeric" {...props} />
}
