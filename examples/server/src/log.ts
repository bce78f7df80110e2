import { displayKey, ErrorType, isKeywardError, type KeywardEvent } from '@keyward/core'
import type { ReplicaEvent } from '@keyward/postgres'
import type { CountersEvent } from './protection.js'

const STRANDED_KEYS_SHOWN = 10

const causeOf = (error: unknown) => (error instanceof Error ? error.message : String(error))

/**
 * One log line for a Keyward event, or `undefined` for a single failed authentication: those
 * are logged summed up, one `auth.failures` line per client address and error type and
 * interval, so that a flood of failures makes a bounded number of lines. Events carry key
 * prefixes only, and so does the line: a full key is never logged.
 */
export function formatEvent(event: KeywardEvent, feed = 'the change feed'): string | undefined {
  switch (event.type) {
    case 'key.issued':
    case 'key.deactivated':
    case 'key.activated':
      return `${event.type} ${displayKey(event.keyPrefix)} ${event.ownerType} ${event.ownerId} (key id ${event.keyId})`
    case 'key.rolled':
      return `${event.type} ${displayKey(event.keyPrefix)} ${event.ownerType} ${event.ownerId} (key id ${event.keyId}) replaces key id ${event.previousKeyId} from ${event.previousExpiresAt.toISOString()}`
    case 'key.expiry_set':
      return `${event.type} ${displayKey(event.keyPrefix)} ${event.ownerType} ${event.ownerId} (key id ${event.keyId}) expires ${event.expiresAt ? event.expiresAt.toISOString() : 'never'}`
    case 'key.rotation_due':
      return `${event.type} ${displayKey(event.keyPrefix)} ${event.ownerType} ${event.ownerId} (key id ${event.keyId}) issued ${event.createdAt.toISOString()}: roll it`
    case 'auth.succeeded':
      return `${event.type} ${displayKey(event.keyPrefix)} ${event.ownerType} ${event.ownerId} (key id ${event.keyId})`
    case 'key.leaked': {
      const state = event.revoked ? 'revoked' : 'already inactive'
      return `${event.type} ${displayKey(event.keyPrefix)} ${event.ownerType} ${event.ownerId} (key id ${event.keyId}) found at ${JSON.stringify(event.url)} (${event.source || 'unknown'}): ${state}`
    }
    case 'key.limit_exceeded':
      return `${event.type} ${event.ownerType} ${event.ownerId} has ${event.activeLimit} active keys`
    case 'auth.failed':
      return undefined
    case 'auth.failures': {
      // A forwarded address is text a proxy passed on: quoted unless it reads as an address.
      const address = /^[\w.:%-]+$/.test(event.address) ? event.address : JSON.stringify(event.address)
      const keys = event.keyPrefixes.map(displayKey).join(' ')
      const counted = `${event.count} ${event.errorType} from ${address} in ${event.intervalSeconds}s`
      return `${event.type} ${counted}${keys ? ` keys ${keys}` : ''}`
    }
    case 'store.error':
      if (isKeywardError(event.error) && event.error.type === ErrorType.revocationUnconfirmed) {
        return `revocation.unconfirmed during ${event.operation}: committed, but ${feed} did not confirm it in time (the database answered); other processes may accept the key until ${feed} is back`
      }
      return `${event.type} during ${event.operation}: ${causeOf(event.error)}`
    case 'credits.stranded':
      return `${event.type} ${displayKey(event.keyPrefix)} (key id ${event.keyId}): ${event.credits} credits leased by this process were not given back at the stop (the database did not answer); they stay spent`
    case 'identity.credits_stranded':
      return `${event.type} identity ${event.identityId}: ${event.credits} credits leased by this process from its pool were not given back at the stop (the database did not answer); they stay spent`
    case 'usage.stranded': {
      // A bounded line however many keys: the largest shares, then how many more.
      const shown = event.keys
        .slice(0, STRANDED_KEYS_SHOWN)
        .map((key) => `${displayKey(key.keyPrefix)} ${key.count}`)
      const more = event.keys.length - shown.length
      const keys = shown.length > 0 ? `: ${shown.join(', ')}${more > 0 ? `, and ${more} more keys` : ''}` : ''
      return `${event.type} ${event.count} usage counts were not written at the stop (the database did not answer)${keys}`
    }
    case 'cache.bypassed':
      return `${event.type}: ${feed} is not connected (${event.error === undefined ? 'closed' : causeOf(event.error)}); verifications go to the database`
    case 'cache.resumed':
      return `${event.type}: ${feed} is connected; verifications are cached again`
    case 'guard.misconfigured':
      return `${event.type} ${event.guard} on ${event.route}: ${event.error.message}`
  }
}

/** One log line for an event of the store's primary, read replicas and change feed. */
export function formatReplicaEvent(event: ReplicaEvent): string {
  switch (event.type) {
    case 'replica.down':
      return `${event.type} ${event.replica}: ${causeOf(event.error)}; its lookups go to the primary`
    case 'replica.up':
      return `${event.type} ${event.replica}`
    case 'replica.lagging':
    case 'replica.caught_up':
      return `${event.type} ${event.replica} (${event.lagMs} ms behind the primary)`
    case 'primary.down':
      return `${event.type}: ${causeOf(event.error)}`
    case 'primary.up':
      return event.type
    case 'feed.stale':
      return `${event.type}: no fence of the change feed came back within ${event.boundMs} ms; verifications skip the cache and the replicas`
    case 'feed.fresh':
      return `${event.type}: the change feed is fresh again`
  }
}

/** One log line for the throttle's shared counters: an outage once when it starts, once when it ends. */
export function formatCountersEvent(event: CountersEvent): string {
  return event.type === 'throttle.degraded'
    ? `${event.type}: the throttle's counters do not answer (${causeOf(event.error)}); requests pass the throttle unchecked until they do`
    : `${event.type}: the throttle's counters answer again after ${(event.downMs / 1000).toFixed(1)} s`
}
