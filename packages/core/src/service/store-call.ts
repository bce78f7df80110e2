import { isKeywardError, KeywardError } from '../errors/error.js'
import { ErrorType } from '../errors/types.js'
import type { KeywardEvent } from './events.js'
import type { StoreCall } from './types.js'

/** @internal How the service calls its store, and the refusal of a store that failed. */
export interface StoreCalls {
  readonly storeCall: StoreCall
  /** Reports a failure of the store as `store.error` and returns its 503 `store_unavailable`. */
  storeUnavailable(operation: string, error: unknown): KeywardError
}

/** @internal The store calls of a service that reports to `emit`. */
export function storeCalls(emit: (event: KeywardEvent) => void): StoreCalls {
  const storeUnavailable = (operation: string, error: unknown) => {
    emit({ type: 'store.error', operation, error })
    return new KeywardError(
      ErrorType.storeUnavailable,
      'The key store is unavailable. Try again later.',
      [],
      {
        cause: error,
      },
    )
  }

  async function storeCall<T>(operation: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run()
    } catch (error) {
      if (isKeywardError(error)) {
        // A revocation committed but not confirmed is answered as it is, and reported as a failure.
        if (error.type === ErrorType.revocationUnconfirmed) emit({ type: 'store.error', operation, error })
        throw error
      }
      throw storeUnavailable(operation, error)
    }
  }

  return { storeCall, storeUnavailable }
}
