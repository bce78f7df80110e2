import type { CreditRefill } from '../credits/types.js'
import type { KeyKind } from '../key/format.js'
import type { KeyRecord } from '../store/types.js'

/** Why an authentication failed, more precisely than the public `type` says. */
export type AuthFailureReason =
  | 'missing'
  | 'malformed'
  | 'legacy_prefix'
  | 'unknown_key'
  | 'inactive_key'
  | 'expired_key'
  | 'wrong_type'
  | 'project_mismatch'
  | 'not_project_owner'
  | 'project_not_found'
  | 'ip_not_allowed'
  | 'permission_denied'
  | 'usage_exceeded'
  | 'store_unavailable'

/** What an event of a change of credits tells, a key's or an identity's pool's. */
export interface CreditsChanged {
  readonly op: 'set' | 'add' | 'subtract'
  /** The amount of an `add` or `subtract`, the new balance of a `set` (`null`: unlimited, or no pool). */
  readonly amount: number | null
  readonly before: { readonly remaining: number | null; readonly refill: CreditRefill | null }
  readonly after: { readonly remaining: number | null; readonly refill: CreditRefill | null }
}

/**
 * What Keyward reports to the host's `onEvent` hook. Events carry key ids and 8-character
 * prefixes only, never a full key. Failures carry the precise reason (an unknown key and an
 * inactive one both answer `key_invalid`, but the hook can tell them apart).
 */
export type KeywardEvent =
  | {
      readonly type: 'key.issued' | 'key.deactivated' | 'key.activated' | 'key.policies_set'
      readonly keyId: string
      readonly keyPrefix: string
      readonly ownerType: KeyKind
      readonly ownerId: string
    }
  | ({
      /**
       * A key's credits were changed (`set`, `add`, `subtract`): the balance before (after any
       * refill due) and after, for an audit log. Credits spent by requests are not reported.
       */
      readonly type: 'key.credits_changed'
      readonly keyId: string
      readonly keyPrefix: string
      readonly ownerType: KeyKind
      readonly ownerId: string
    } & CreditsChanged)
  | ({
      /**
       * The credit pool of an identity was changed (`set`, `add`, `subtract`): the pool before
       * (after any refill due) and after. Credits spent by requests are not reported.
       */
      readonly type: 'identity.credits_changed'
      readonly identityId: string
      readonly projectId: string
    } & CreditsChanged)
  | {
      /** A key passed authentication. Only with the option `auditSuccesses`: otherwise never built. */
      readonly type: 'auth.succeeded'
      readonly keyId: string
      readonly keyPrefix: string
      readonly ownerType: KeyKind
      readonly ownerId: string
    }
  | {
      /** A key was rolled: `keyId` is the new key, `previousKeyId` the old one, which expires at `previousExpiresAt`. */
      readonly type: 'key.rolled'
      readonly keyId: string
      readonly keyPrefix: string
      readonly ownerType: KeyKind
      readonly ownerId: string
      readonly previousKeyId: string
      readonly previousExpiresAt: Date
    }
  | {
      /** A key's expiry was set (`expiresAt`), or cleared (`null`: it never expires). */
      readonly type: 'key.expiry_set'
      readonly keyId: string
      readonly keyPrefix: string
      readonly ownerType: KeyKind
      readonly ownerId: string
      readonly expiresAt: Date | null
    }
  | {
      /** A key older than the rotation period was used; at most once per key per day and process. */
      readonly type: 'key.rotation_due'
      readonly keyId: string
      readonly keyPrefix: string
      readonly ownerType: KeyKind
      readonly ownerId: string
      readonly createdAt: Date
    }
  | {
      /**
       * A known key was reported as leaked (found in a public place) and is now inactive. Tell
       * the owner where it was found; `revoked` is `false` when the key was inactive already
       * (a repeated report), so a host can tell the owner once.
       */
      readonly type: 'key.leaked'
      readonly keyId: string
      readonly keyPrefix: string
      readonly ownerType: KeyKind
      readonly ownerId: string
      /** Where the key was found, as the reporter said; may be empty. */
      readonly url: string
      /** What kind of place that is (`content`, `commit`, `npm`, ...), as the reporter said. */
      readonly source: string
      readonly revoked: boolean
    }
  | {
      readonly type: 'key.limit_exceeded'
      readonly ownerType: KeyKind
      readonly ownerId: string
      readonly activeLimit: number
    }
  | {
      readonly type: 'auth.failed'
      readonly reason: AuthFailureReason
      /** The header the failing credential came from. */
      readonly header: string
      /** The error type the caller receives. */
      readonly errorType: string
      readonly keyId?: string
      readonly keyPrefix?: string
    }
  | {
      /**
       * The verification cache is emptied and bypassed: the store's change feed lost its
       * connection, so writes by other processes may go unheard. Lookups go to the store.
       */
      readonly type: 'cache.bypassed'
      readonly reason: 'feed_disconnected'
      readonly error?: unknown
    }
  | {
      /** The change feed is connected again; the cache is in use again, starting empty. */
      readonly type: 'cache.resumed'
    }
  | {
      /**
       * Failed authentications of one client address and error type during one interval, in one
       * event, so that a flood is reported in a bounded number of lines. `address` is `other` for
       * the addresses past the report's limit, `unknown` when the runtime does not tell it.
       */
      readonly type: 'auth.failures'
      readonly address: string
      /** The error type the client received (`rate_limited` for requests refused by the throttle). */
      readonly errorType: string
      readonly count: number
      /** Up to 3 prefixes of the keys presented (8 characters), never a full key. */
      readonly keyPrefixes: readonly string[]
      readonly intervalSeconds: number
    }
  | {
      readonly type: 'store.error'
      readonly operation: string
      readonly error: unknown
    }
  | {
      /**
       * A clean stop (`keyward.close()`) could not give back credits this process leased and did
       * not spend: the store could not be reached for `credits.returnTimeoutMs`, or a give-back's
       * outcome is unknown. They stay spent from the key's viewpoint.
       */
      readonly type: 'credits.stranded'
      readonly keyId: string
      readonly keyPrefix: string
      readonly credits: number
    }
  | {
      /**
       * A clean stop could not give back credits this process leased from an identity's pool and
       * did not spend, as `credits.stranded` says of a key's. They stay spent from the pool.
       */
      readonly type: 'identity.credits_stranded'
      readonly identityId: string
      readonly credits: number
    }
  | {
      /**
       * A clean stop (`keyward.close()`) could not write the usage counts held in memory: the store
       * failed for `credits.returnTimeoutMs`. They are lost: `count` in all (refusals of unknown
       * keys included), and each key's share by prefix, the largest first.
       */
      readonly type: 'usage.stranded'
      readonly count: number
      readonly keys: readonly { readonly keyId: string; readonly keyPrefix: string; readonly count: number }[]
    }
  | {
      /**
       * A guard sits on a route that lacks the path parameter it reads: every request there is
       * answered 500 (the error also reaches the framework's error handler). Reported once per
       * guard and route. Fix the route, or give the guard the parameter's name.
       */
      readonly type: 'guard.misconfigured'
      /** The guard, e.g. `requireProject`. */
      readonly guard: string
      /** The request's method and path, e.g. `GET /reports`. */
      readonly route: string
      /** The path parameter the guard needs, e.g. `project_id`. */
      readonly param: string
      readonly error: Error
    }

/** The host's event hook. Its exceptions are swallowed: a hook never breaks authentication. */
export type KeywardEventHook = (event: KeywardEvent) => void

/** @internal Calls the hook, if any, and ignores what it throws. */
export function emitter(hook: KeywardEventHook | undefined): (event: KeywardEvent) => void {
  if (!hook) return () => {}
  return (event) => {
    try {
      hook(event)
    } catch {
      // The host's hook must not change the outcome of a request.
    }
  }
}

/** @internal The `key.deactivated` event of a record the service deactivated: its prefix, never the key. */
export function deactivatedEvent(record: KeyRecord): KeywardEvent {
  return {
    type: 'key.deactivated',
    keyId: record.id,
    keyPrefix: record.keyPrefix,
    ownerType: record.ownerType,
    ownerId: record.ownerId,
  }
}
