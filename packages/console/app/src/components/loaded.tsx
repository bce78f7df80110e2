import { useEffect, useState } from 'preact/hooks'
import { ApiError, messageOf } from '../api'
import { Failed, Loading } from './States'

/**
 * The one thing a page is of (a key, an identity), read by `load` when the page opens, again when
 * `load` changes, and on `retry`; `failure` is the last read's refusal, `undefined` while it reads.
 */
export function useLoaded<T>(load: () => Promise<T>) {
  const [value, setValue] = useState<T | undefined>()
  const [failure, setFailure] = useState<unknown>()
  const [attempt, setAttempt] = useState(0)
  useEffect(() => {
    let current = true
    setFailure(undefined)
    // `attempt` is read so that a retry reads again.
    void attempt
    load().then(
      (found) => current && setValue(found),
      (caught) => current && setFailure(caught ?? new Error('failed')),
    )
    return () => {
      current = false
    }
  }, [load, attempt])
  return { value, setValue, failure, retry: () => setAttempt((n) => n + 1) }
}

/**
 * What a page says until its thing is here: that it loads, that there is no such thing (a 404,
 * in the words of `missing`), or the failure, with "Try again".
 */
export function NotLoaded({
  what,
  missing,
  failure,
  retry,
}: {
  what: string
  missing: string
  failure: unknown
  retry: () => void
}) {
  if (failure === undefined) return <Loading what={what} />
  if (failure instanceof ApiError && failure.status === 404) return <Failed message={missing} />
  return <Failed message={messageOf(failure)} retry={retry} />
}

/** The document's title while a page shows `name`, back to the console's own after. */
export function usePageTitle(name: string) {
  useEffect(() => {
    document.title = `${name} · Keyward console`
    return () => {
      document.title = 'Keyward console'
    }
  }, [name])
}
