import type { ComponentChildren } from 'preact'
import { useState } from 'preact/hooks'
import type { CreatedKey } from '../api'

/**
 * A secret in full, this once (a new key, a webhook endpoint's signing secret): a warning, the
 * secret in a field of its own (`id`, named by `label`) with a copy button, `children` after them,
 * and `done` (the button that dismisses it, after which nothing keeps it).
 */
export function ShownOnce({
  id,
  label,
  secret,
  warning,
  done,
  onDone,
  children,
}: {
  id: string
  label: string
  secret: string
  warning: string
  done: string
  onDone: () => void
  children?: ComponentChildren
}) {
  const [copied, setCopied] = useState(false)
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret)
      setCopied(true)
    } catch {
      ;(document.getElementById(id) as HTMLInputElement | null)?.select()
    }
  }
  return (
    <>
      <p class="warning" role="alert">
        {warning}
      </p>
      <div class="issued-row">
        <label for={id} class="visually-hidden">
          {label}
        </label>
        <input
          id={id}
          class="mono"
          readOnly
          value={secret}
          onFocus={(event) => event.currentTarget.select()}
        />
        <button type="button" onClick={copy}>
          {copied ? 'Copied' : 'Copy'}
        </button>
      </div>
      {children}
      <button type="button" class="secondary" onClick={onDone}>
        {done}
      </button>
    </>
  )
}

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
  return (
    <section class="issued" aria-labelledby="issued-title">
      <h3 id="issued-title">New key “{issued.name ?? issued.display}”</h3>
      <ShownOnce
        id="issued-key"
        label="The new key"
        secret={issued.key}
        warning="Copy this key now: it is shown once and can never be shown again. Store it in a secret manager."
        done="I have stored it"
        onDone={onDone}
      >
        {note ? <p>{note}</p> : null}
        {children ? <p>{children}</p> : null}
      </ShownOnce>
    </section>
  )
}
