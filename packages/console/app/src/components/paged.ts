import { useCallback, useEffect, useState } from 'preact/hooks'
import type { Page } from '../api'

/** A list the server pages: the items shown so far, the next page's cursor, and the loading state. */
export function usePaged<T>(
  fetchPage: (cursor: string | null) => Promise<Page<T>>,
  onError: (failure: unknown) => void,
) {
  const [items, setItems] = useState<readonly T[]>([])
  const [next, setNext] = useState<string | null>(null)
  const [loading, setLoading] = useState(true)

  const load = useCallback(
    async (cursor: string | null) => {
      setLoading(true)
      try {
        const page = await fetchPage(cursor)
        setItems((shown) => (cursor === null ? page.items : [...shown, ...page.items]))
        setNext(page.next)
      } catch (failure) {
        onError(failure)
      } finally {
        setLoading(false)
      }
    },
    [fetchPage, onError],
  )
  useEffect(() => {
    void load(null)
  }, [load])

  return { items, setItems, next, loading, reload: () => load(null), more: () => load(next) }
}
