import type { KeyChangeEvent, KeyChangeFeed, KeyOwner } from './types.js'

/**
 * A {@link KeyChangeFeed} that a store feeds itself: it keeps the listeners and the
 * `connected` state, and `publish` hands an event to every listener (a `connected` or
 * `disconnected` event also sets the state). A listener that throws does not stop the others.
 *
 * The memory store publishes its own writes on one (always connected); the PostgreSQL
 * store publishes what its listening connection hears.
 *
 * @example
 * ```ts
 * const feed = new KeyChangeHub({ connected: true })
 * feed.subscribe((event) => logger.debug({ feed: event.type }))
 * feed.publish({ type: 'changed', hash: record.hash, id: record.id })
 * ```
 */
export class KeyChangeHub implements KeyChangeFeed {
  #connected: boolean
  readonly #listeners = new Set<(event: KeyChangeEvent) => void>()

  constructor(options: { readonly connected?: boolean } = {}) {
    this.#connected = options.connected ?? false
  }

  get connected(): boolean {
    return this.#connected
  }

  subscribe(listener: (event: KeyChangeEvent) => void): () => void {
    // A wrapper of its own, so that one function subscribed twice is called twice.
    const entry = (event: KeyChangeEvent) => listener(event)
    this.#listeners.add(entry)
    return () => {
      this.#listeners.delete(entry)
    }
  }

  /** Hands `event` to every listener; `connected` and `disconnected` set the state first. */
  publish(event: KeyChangeEvent): void {
    if (event.type === 'connected') this.#connected = true
    else if (event.type === 'disconnected') this.#connected = false
    for (const listener of this.#listeners) {
      try {
        listener(event)
      } catch {
        // One listener's failure must not keep the change from the others.
      }
    }
  }
}

/**
 * The `hash` of the `changed` event of a closed owner (`owner:project:<id>`): it names no key
 * (a key's hash is 64 hex digits), so a cache forgets nothing by it but what it keeps of owners.
 *
 * @example
 * ```ts
 * ownerChangeHash({ type: 'project', id: 'proj_1' }) // 'owner:project:proj_1'
 * ```
 */
export function ownerChangeHash(owner: KeyOwner): string {
  return `owner:${owner.type}:${owner.id}`
}
