import { type KeywardError, refusal } from '../errors/error.js'
import { ErrorType } from '../errors/types.js'
import { clientAddress, type TrustedProxy } from '../http/client-address.js'
import { routeOf } from '../http/route-of.js'
import type { KeywardRequest } from '../http/types.js'
import { KEY_HEADER, type KeyKind, KIND_WORDS } from '../key/format.js'
import type { KeyRecord } from '../store/types.js'
import type { UsageOutcome } from '../store/usage.js'
import type { AuthFailureReason, KeywardEvent } from './events.js'
import { OUTCOME, type UsageCounts } from './usage-counts.js'

const settled = Promise.resolve()

// The refusals that usage counts, by the outcome it counts them under (a missing key and an
// unreachable store are no verification of a key).
const REFUSAL_OUTCOME: Readonly<Partial<Record<AuthFailureReason, UsageOutcome>>> = {
  malformed: 'malformed',
  legacy_prefix: 'malformed',
  unknown_key: 'unknown',
  inactive_key: 'inactive',
  expired_key: 'expired',
  wrong_type: 'wrong_type',
  project_mismatch: 'wrong_project',
  not_project_owner: 'not_project_owner',
  project_not_found: 'project_not_found',
  ip_not_allowed: 'ip_not_allowed',
  permission_denied: 'permission_denied',
}

/**
 * @internal Unknown, inactive and expired keys get one answer: the API is no oracle of which keys
 * exist. Its text never varies, so each kind's is built once, frozen, and shared by every
 * refusal: a flood of bad keys allocates nothing for them.
 */
export const INVALID: Readonly<Record<KeyKind, KeywardError>> = {
  developer: frozenRefusal('developer'),
  project: frozenRefusal('project'),
}

function frozenRefusal(kind: KeyKind): KeywardError {
  const error = refusal(
    ErrorType.keyInvalid,
    `The ${KIND_WORDS[kind].label} is not valid: it is unknown or no longer active.`,
    ['header', KEY_HEADER[kind]],
  )
  Object.freeze(error.loc)
  for (const detail of error.details) Object.freeze(detail)
  Object.freeze(error.details)
  return Object.freeze(error)
}

/**
 * @internal A promise that rejects with `error` a tick later, once the caller has attached its
 * handlers. Refusals are built this way, neither thrown nor `Promise.reject`ed: a throw, and a
 * rejection that has no handler yet (Node's unhandled-rejection bookkeeping), each cost more than
 * the whole verification (see bench/).
 */
export function refused(error: KeywardError): Promise<never> {
  return new Promise((_, reject) => {
    settled.then(() => reject(error))
  })
}

/**
 * @internal Reports a failed verification and returns its error: to the usage counts, and to the
 * host's hook with its precise reason. `address` and `request` say where a refusal that names no
 * key came from.
 */
export type Failed = (
  kind: KeyKind,
  reason: AuthFailureReason,
  error: KeywardError,
  record?: KeyRecord,
  address?: string,
  request?: KeywardRequest,
) => KeywardError

/** @internal What the report of a failed verification reaches. */
export interface RefusalDependencies {
  readonly emit: (event: KeywardEvent) => void
  /** Whether the host listens to events: without a hook, no event is built. */
  readonly listening: boolean
  /** The service's usage counts; absent without them. */
  readonly counts: UsageCounts | undefined
  /** The proxy whose header names a request's client address (option `protection.trustedProxy`). */
  readonly trustedProxy: TrustedProxy | undefined
}

/** @internal The service's report of a failed verification. */
export function refusalReporter({ emit, listening, counts, trustedProxy }: RefusalDependencies): Failed {
  // Usage counts of a refusal: per key when it names one, else per route and the address of the
  // request (a request's own, not an address it names for the allowlist).
  function countRefusal(
    reason: AuthFailureReason,
    record: KeyRecord | undefined,
    address: string | undefined,
    request: KeywardRequest | undefined,
  ): void {
    const outcome = REFUSAL_OUTCOME[reason]
    if (outcome === undefined || !counts) return
    if (record) counts.count(record, OUTCOME[outcome])
    else if (outcome === 'unknown' || outcome === 'malformed') {
      const from = request ? clientAddress(request, trustedProxy) : address
      counts.refusedUnknown(outcome, request ? routeOf(request) : '', from ?? 'unknown')
    }
  }

  return function failed(kind, reason, error, record, address, request) {
    if (counts) countRefusal(reason, record, address, request)
    // Without a hook, no event is built: a flood of refusals costs no garbage.
    if (!listening) return error
    emit({
      type: 'auth.failed',
      reason,
      header: KEY_HEADER[kind],
      errorType: error.type,
      ...(record ? { keyId: record.id, keyPrefix: record.keyPrefix } : {}),
    })
    return error
  }
}
