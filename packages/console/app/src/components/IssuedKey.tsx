import type { ComponentChildren } from 'preact'
import { useState } from 'preact/hooks'
import type { CreatedKey } from '../api'

/**
 * A new key, in full, this once: a copy button, a warning, and nothing kept once dismissed;
 * `children` (a link to the key's page) follow the note.
 */
export function IssuedKey({
  issued,
  note,
  onDone,
  children,
}: {
  issued: CreatedKey
  note?: string
  onDone: () => void
  children?: ComponentChildren
}) {
  const [copied, setCopied] = useState(false)
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(issued.key)
      setCopied(true)
    } catch {
      ;(document.getElementById('issued-key') as HTMLInputElement | null)?.select()
    }
  }
  return (
    <section class="issued" aria-labelledby="issued-title">
      <h3 id="issued-title">New key “{issued.name ?? issued.display}”</h3>
      <p class="warning" role="alert">
        Copy this key now: it is shown once and can never be shown again. Store it in a secret manager.
      </p>
      <div class="issued-row">
        <label for="issued-key" class="visually-hidden">
          The new key
        </label>
        <input
          id="issued-key"
          class="mono"
          readOnly
          value={issued.key}
          onFocus={(event) => event.currentTarget.select()}
        />
        <button type="button" onClick={copy}>
          {copied ? 'Copied' : 'Copy'}
        </button>
      </div>
      {note ? <p>{note}</p> : null}
      {children ? <p>{children}</p> : null}
      <button type="button" class="secondary" onClick={onDone}>
        I have stored it
      </button>
    </section>
  )
}
