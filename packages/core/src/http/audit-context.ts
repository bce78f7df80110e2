import type { AuditContext } from '../audit/types.js'
import type { Keyward } from '../service/keyward.js'
import type { KeyRef } from '../service/requirements.js'
import type { KeywardRequest } from './types.js'

// What a request id may be: short printable text, as proxies and tracers make them.
const REQUEST_ID = /^[A-Za-z0-9._:/+=-]{1,128}$/
// Anything that may hold a key (`ak_`, or a legacy `dk_`) is not taken.
const KEY_LIKE = /[ad]k_/

/**
 * The request's id: its `X-Request-Id` header when it is one short printable token (1 to 128 of
 * `A-Z a-z 0-9 . _ : / + = -`, with no `ak_` or `dk_` in it: a key is never written to the
 * audit log), else a new random UUID.
 *
 * @example
 * ```ts
 * requestId(request) // '7f0c...' or the caller's own X-Request-Id
 * ```
 */
export function requestId(request: Pick<KeywardRequest, 'header'>): string {
  const given = request.header('x-request-id')
  if (typeof given === 'string' && REQUEST_ID.test(given) && !KEY_LIKE.test(given)) {
    return given
  }
  return crypto.randomUUID()
}

/**
 * The audit context of a request made with a developer key: the developer and the prefix of the
 * key they used, the client's address (as the throttle reads it) and the request's id. What the
 * key routes hand the service's writes; a host passes it to its own (`recordAudit`).
 *
 * @example
 * ```ts
 * const context = auditContext(keyward, request, c.get('keyward'))
 * await keyward.recordAudit({ action: 'project.deleted', targetType: 'project', targetId: id, developerId }, context)
 * ```
 */
export function auditContext(
  keyward: Pick<Keyward, 'clientAddress'>,
  request: KeywardRequest,
  auth: { readonly developerId: string; readonly developerKey: KeyRef },
): AuditContext {
  return {
    actor: { type: 'developer', developerId: auth.developerId, keyPrefix: auth.developerKey.keyPrefix },
    clientAddress: keyward.clientAddress(request) ?? null,
    requestId: requestId(request),
  }
}
