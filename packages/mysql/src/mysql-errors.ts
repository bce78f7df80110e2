// The errors of mysql2 that decide what a transaction does next.
const errno = (error: unknown): number => Number((error as { errno?: unknown } | null)?.errno ?? 0)

/** Deadlock (ER_LOCK_DEADLOCK) or lock wait timeout (ER_LOCK_WAIT_TIMEOUT): the transaction is rolled back and may run again. */
export const isRetryable = (error: unknown): boolean => errno(error) === 1213 || errno(error) === 1205

/** A lost connection or a timeout of the client: what the server did with the statement is unknown. */
export const isConnectionLost = (error: unknown): boolean => {
  const { code, fatal } = (error ?? {}) as { code?: string; fatal?: boolean }
  return (
    fatal === true ||
    code === 'PROTOCOL_SEQUENCE_TIMEOUT' ||
    code === 'ECONNRESET' ||
    code === 'PROTOCOL_CONNECTION_LOST'
  )
}

/**
 * `open` (a transaction of the store's own) run again after a deadlock or a lock wait timeout,
 * at most `retries` times: the server rolled it back, and the store's function only touches the
 * database through its transaction.
 */
export function retriedOnDeadlock<H>(
  open: <T>(fn: (tx: H) => Promise<T>) => Promise<T>,
  retries = 5,
): <T>(fn: (tx: H) => Promise<T>) => Promise<T> {
  return async (fn) => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await open(fn)
      } catch (error) {
        if (attempt >= retries || !isRetryable(error)) throw error
      }
    }
  }
}
