import { useCallback, useEffect, useState } from 'preact/hooks'
import type { Page } from '../api'

/**
 * A list the server pages: the items shown so far, the next page's cursor, the loading state, and
 * the failure of the last load (`undefined` once one succeeds), which `reload` tries again.
 */
export function usePaged<T>(fetchPage: (cursor: string | null) => Promise<Page<T>>) {
  const [items, setItems] = useState<readonly T[]>([])
  const [next, setNext] = useState<string | null>(null)
  const [loading, setLoading] = useState(true)
  const [failure, setFailure] = useState<unknown>()

  const load = useCallback(
    async (cursor: string | null) => {
      setLoading(true)
      setFailure(undefined)
      try {
        const page = await fetchPage(cursor)
        setItems((shown) => (cursor === null ? page.items : [...shown, ...page.items]))
        setNext(page.next)
      } catch (caught) {
        setFailure(caught ?? new Error('failed'))
      } finally {
        setLoading(false)
      }
    },
    [fetchPage],
  )
  useEffect(() => {
    void load(null)
  }, [load])

  return { items, setItems, next, loading, failure, reload: () => load(null), more: () => load(next) }
}
