import { errorResponse, jsonResponse, type KeywardError } from '@keyward/core'
import { send } from '@keyward/hono'
import type { Context } from 'hono'

// As the key routes answer: nothing the server returns belongs in a shared cache.
const NO_STORE = { 'cache-control': 'no-store' }

/** Sends a JSON success answer, with the same headers as Keyward's own routes. */
export const respond = (c: Context, status: number, value: unknown): Response =>
  send(c, jsonResponse(status, value, NO_STORE))

/** Sends an error in the specification's format. */
export const refuse = (c: Context, error: KeywardError, headers?: Record<string, string>): Response => {
  const response = errorResponse(error)
  return send(c, headers ? { ...response, headers: { ...response.headers, ...headers } } : response)
}
