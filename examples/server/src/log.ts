import { displayKey, type KeywardEvent } from '@keyward/core'

const causeOf = (error: unknown) => (error instanceof Error ? error.message : String(error))

/**
 * One log line for a Keyward event. Events carry key prefixes only, and so does the line:
 * a full key is never logged.
 */
export function formatEvent(event: KeywardEvent): string {
  switch (event.type) {
    case 'key.issued':
    case 'key.deactivated':
    case 'key.activated':
      return `${event.type} ${displayKey(event.keyPrefix)} ${event.ownerType} ${event.ownerId} (key id ${event.keyId})`
    case 'key.limit_exceeded':
      return `${event.type} ${event.ownerType} ${event.ownerId} has ${event.activeLimit} active keys`
    case 'auth.failed': {
      const key = event.keyPrefix ? ` ${displayKey(event.keyPrefix)}` : ''
      return `${event.type} ${event.errorType} (${event.reason}) in ${event.header}${key}`
    }
    case 'store.error':
      return `${event.type} during ${event.operation}: ${causeOf(event.error)}`
    case 'cache.bypassed':
      return `${event.type}: the change feed is not connected (${event.error === undefined ? 'closed' : causeOf(event.error)}); verifications go to the database`
    case 'cache.resumed':
      return `${event.type}: the change feed is connected; verifications are cached again`
  }
}
