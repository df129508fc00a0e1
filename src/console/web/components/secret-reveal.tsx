import type { ComponentChildren } from 'preact'
import { useRef, useState } from 'preact/hooks'

/**
 * A secret shown exactly once (a new key, a generated password), with a copy button. The clipboard API needs a
 * secure context; elsewhere the text is selected so Ctrl+C works.
 */
export function SecretReveal({
  label,
  secret,
  testId,
  children,
}: {
  label: string
  secret: string
  testId: string
  children?: ComponentChildren
}) {
  const code = useRef<HTMLElement>(null)
  const [copied, setCopied] = useState<'no' | 'yes' | 'select'>('no')
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret)
      setCopied('yes')
    } catch {
      const range = document.createRange()
      range.selectNodeContents(code.current!)
      getSelection()?.removeAllRanges()
      getSelection()?.addRange(range)
      setCopied('select')
    }
  }
  return (
    <section class="secret" aria-label={label}>
      <p class="secret-label">{label}</p>
      <div class="secret-row">
        <code ref={code} data-testid={testId} class="secret-value">
          {secret}
        </code>
        <button type="button" class="button" onClick={copy}>
          {copied === 'yes' ? 'Copied' : 'Copy'}
        </button>
      </div>
      <p class="hint" role="status">
        {copied === 'select' ? 'Selected — press Ctrl+C (⌘C) to copy. ' : ''}
        This is shown only now. Store it somewhere safe: it cannot be displayed again.
      </p>
      {children}
    </section>
  )
}
