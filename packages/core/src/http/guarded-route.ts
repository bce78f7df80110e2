import type { DeveloperAuth } from '../service/requirements.js'
import { encodeCursor } from './cursor.js'
import { checkQueryNames } from './query-parameters.js'
import { errorResponse, jsonResponse } from './response.js'
import type { Guard, KeyRoute, KeywardRequest, KeywardResponse } from './types.js'

/** @internal A UUID, as the ids of keys and identities are: anything else names none of them. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

const NO_STORE = { 'cache-control': 'no-store' }

/** @internal A JSON answer of a management route: never kept by a cache. */
export const respond = (status: number, value: unknown): KeywardResponse =>
  jsonResponse(status, value, NO_STORE)

/** @internal A page's `next_cursor`: its position, opaque, or `null` on the last page. */
export const nextCursor = (next: { readonly createdAt: Date | string; readonly id: string } | null) =>
  next ? encodeCursor(next) : null

/**
 * @internal A management route: `guard` first (the credential is checked before anything of the
 * request is; its refusal is the answer), then its query (a parameter not in `query`, the names
 * it reads, is 422 `extra_forbidden`), then `run`, whose throw is answered in the error format.
 */
export function guardedRoute(
  method: KeyRoute['method'],
  path: string,
  guard: Guard<DeveloperAuth>,
  run: (request: KeywardRequest, auth: DeveloperAuth) => Promise<KeywardResponse>,
  query: readonly string[] = [],
): KeyRoute {
  return {
    method,
    path,
    async handle(request) {
      const result = await guard(request)
      if (!result.ok) return result.response
      try {
        checkQueryNames(request, query)
        return await run(request, result.auth)
      } catch (error) {
        return errorResponse(error)
      }
    },
  }
}
