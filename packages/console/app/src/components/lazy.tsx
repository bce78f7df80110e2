import type { ComponentType, FunctionComponent } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { Failed, Loading } from './States'

/**
 * A page whose code is a chunk of its own, fetched the first time the page is shown (`load` is a
 * dynamic `import()`), so that the first page of a visit does not wait for the code of the others.
 * Once fetched, the page renders at once; a failed fetch says so and can be tried again.
 */
export function lazyPage<P extends object>(
  load: () => Promise<ComponentType<P>>,
): FunctionComponent<P> & { preload(): void } {
  let loaded: ComponentType<P> | undefined
  let loading: Promise<unknown> | undefined
  const fetchPage = () => {
    loading ??= load().then(
      (page) => {
        loaded = page
      },
      (error: unknown) => {
        loading = undefined
        throw error
      },
    )
    return loading
  }
  function LazyPage(props: P) {
    const [attempt, setAttempt] = useState(0)
    const [failed, setFailed] = useState(false)
    const [, setReady] = useState(false)
    useEffect(() => {
      if (loaded) return
      let current = true
      fetchPage().then(
        () => current && setReady(true),
        () => current && setFailed(true),
      )
      return () => {
        current = false
      }
    }, [attempt])
    if (loaded) {
      const Page = loaded
      return <Page {...props} />
    }
    return (
      <main id="main" class="stack">
        {failed ? (
          <Failed
            message="This page could not be loaded. Check the connection, then try again."
            retry={() => {
              setFailed(false)
              setAttempt((n) => n + 1)
            }}
          />
        ) : (
          <Loading what="the page" />
        )}
      </main>
    )
  }
  /** Starts fetching the page's code before it is shown (a failure is told when it is). */
  LazyPage.preload = () => void fetchPage().catch(() => {})
  return LazyPage
}
