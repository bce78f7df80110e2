import type { ComponentChildren } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
import { messageOf } from '../api'

/** A modal dialog (the platform's `<dialog>`: focus stays inside, Escape closes it). */
export function Dialog({
  title,
  onClose,
  children,
}: {
  title: string
  onClose: () => void
  children: ComponentChildren
}) {
  const ref = useRef<HTMLDialogElement>(null)
  useEffect(() => {
    const dialog = ref.current
    if (dialog && !dialog.open) dialog.showModal()
    return () => dialog?.close()
  }, [])
  return (
    <dialog ref={ref} class="dialog" aria-labelledby="dialog-title" onClose={onClose} onCancel={onClose}>
      <h2 id="dialog-title">{title}</h2>
      {children}
    </dialog>
  )
}

/** A dialog's buttons: the action (a submit button), then Cancel. */
export function DialogButtons({ onCancel, children }: { onCancel: () => void; children: ComponentChildren }) {
  return (
    <div class="buttons">
      {children}
      <button type="button" class="secondary" onClick={onCancel}>
        Cancel
      </button>
    </div>
  )
}

/**
 * A dialog's refusal, shown inside the dialog (a message on the page would sit behind the dialog's
 * backdrop); announced as it appears, and referred to by the fields it concerns (`aria-describedby`).
 */
export function DialogError({ id, children }: { id: string; children: ComponentChildren }) {
  return (
    <p id={id} class="field-error" role="alert">
      {children}
    </p>
  )
}

/**
 * A dialog's change, made once at a time: `run(work)` clears the last refusal, marks the dialog
 * `busy` while `work` runs, and keeps its refusal in `error`, in the words of `explain`.
 */
export function useDialogWork(explain: (failure: unknown) => string = messageOf) {
  const [error, setError] = useState('')
  const [busy, setBusy] = useState(false)
  const run = async (work: () => Promise<void>) => {
    setError('')
    setBusy(true)
    try {
      await work()
    } catch (failure) {
      setError(explain(failure))
    } finally {
      setBusy(false)
    }
  }
  return { error, setError, busy, run }
}

/**
 * A dialog's form: on submit, `read` gives what to send, or the words of what is wrong (shown
 * through `refuse`, nothing sent); the browser's own checks are off, the server's words are shown.
 */
export function DialogForm<T>({
  read,
  send,
  refuse,
  children,
}: {
  read: () => T | string
  send: (value: T) => Promise<void>
  refuse: (message: string) => void
  children: ComponentChildren
}) {
  return (
    <form
      class="stack"
      noValidate
      onSubmit={(event) => {
        event.preventDefault()
        const value = read()
        if (typeof value === 'string') refuse(value)
        else void send(value)
      }}
    >
      {children}
    </form>
  )
}
