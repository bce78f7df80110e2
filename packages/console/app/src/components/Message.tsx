import type { ComponentChildren } from 'preact'

/** A message for the reader, announced to screen readers as it appears. */
export function Message({ kind, children }: { kind: 'error' | 'info'; children: ComponentChildren }) {
  if (children === null || children === undefined || children === '') return null
  return (
    <p class={`message message-${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      {kind === 'error' ? <strong>Error: </strong> : null}
      {children}
    </p>
  )
}
