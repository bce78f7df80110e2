import type { ComponentChildren } from 'preact'
import { ago, when } from '../format'

/** What a list or a page shows while its data is on its way, announced once. */
export function Loading({ what }: { what: string }) {
  return (
    <p class="state" role="status">
      <span class="spinner" aria-hidden="true" />
      Loading {what}…
    </p>
  )
}

/** What a list without items says: what it would hold, and how to add the first. */
export function Empty({ children }: { children: ComponentChildren }) {
  return <div class="state state-empty">{children}</div>
}

/** A failure to load, in the server's words, with a way to try again. */
export function Failed({ message, retry }: { message: string; retry?: () => void }) {
  return (
    <div class="state state-failed" role="alert">
      <p>
        <strong>Error: </strong>
        {message}
      </p>
      {retry ? (
        <button type="button" class="secondary" onClick={retry}>
          Try again
        </button>
      ) : null}
    </div>
  )
}

/** An instant told relative to now (`5 minutes ago`), the exact time in its title and markup. */
export function When({ value, fallback = '—' }: { value: string | null | undefined; fallback?: string }) {
  if (!value) return <>{fallback}</>
  return (
    <time dateTime={value} title={when(value)}>
      {ago(value, fallback)}
    </time>
  )
}

/**
 * The states of a paged list below its items: loading, a failure with "Try again", the list's
 * empty message, or "Show more" while a page follows.
 */
export function ListStates({
  paged,
  what,
  empty,
  message,
}: {
  paged: {
    readonly items: readonly unknown[]
    readonly loading: boolean
    readonly failure: unknown
    readonly next: string | null
    reload(): Promise<void>
    more(): Promise<void>
  }
  what: string
  empty: ComponentChildren
  message: (failure: unknown) => string
}) {
  if (paged.loading) return <Loading what={what} />
  if (paged.failure !== undefined) return <Failed message={message(paged.failure)} retry={paged.reload} />
  if (paged.items.length === 0) return <Empty>{empty}</Empty>
  if (paged.next === null) return null
  return (
    <button type="button" class="secondary" onClick={paged.more}>
      Show more
    </button>
  )
}
