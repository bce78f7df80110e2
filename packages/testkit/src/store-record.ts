import {
  hashKey,
  KEY_ALPHABET,
  type KeyChangeFeed,
  type KeyRecord,
  type KeyStore,
  keyPrefix,
} from '@keyward/core'
import type { TestContext } from 'vitest'

/** Random characters of the key alphabet. */
export function randomPart(length: number): string {
  const bytes = crypto.getRandomValues(new Uint8Array(length))
  return Array.from(bytes, (b) => KEY_ALPHABET[b & 63]).join('')
}

/** A new active key record of `key` (a fresh random key when omitted), as a service would build it. */
export async function recordFor(
  key: string | undefined,
  ownerType: 'developer' | 'project',
  ownerId: string,
): Promise<KeyRecord> {
  const presented = key ?? `ak_${randomPart(32)}`
  return {
    id: crypto.randomUUID(),
    hash: await hashKey(presented),
    keyPrefix: keyPrefix(presented),
    ownerType,
    ownerId,
    name: null,
    active: true,
    createdAt: new Date(Math.floor(Date.now() / 1000) * 1000),
    expiresAt: null,
    lastUsedAt: null,
    replacedBy: null,
    ipAllowlist: null,
    permissions: null,
    metadata: null,
  }
}

/**
 * A record without `revokedReason`, which a store may keep or not: what the cases compare when
 * a record was deactivated (the reason has cases of its own).
 */
export function withoutReason(record: KeyRecord): KeyRecord {
  const { revokedReason: _reason, ...rest } = record
  return rest
}

/** Records sorted by id, without `revokedReason`: for comparing sets of records. */
export const byId = (records: readonly KeyRecord[]): KeyRecord[] =>
  records.map(withoutReason).sort((a, b) => a.id.localeCompare(b.id))

/** Waits until `check` holds, polling every 5 ms, for at most 15 s. */
export async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  const end = Date.now() + 15_000
  while (!(await check())) {
    if (Date.now() > end) throw new Error('the condition did not hold within 15 s')
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

/**
 * Runs `write` and waits until the feed has reported a change of each of `keys` (other changes
 * may come too); fails after 15 s.
 */
export async function reportsEach(
  feed: KeyChangeFeed,
  keys: readonly KeyRecord[],
  write: () => Promise<unknown>,
): Promise<void> {
  const heard = new Set<string>()
  const stop = feed.subscribe((event) => {
    if (event.type === 'changed') heard.add(event.hash)
  })
  try {
    await write()
    await until(() => keys.every((key) => heard.has(key.hash)))
  } finally {
    stop()
  }
}

/** The store's change feed once it is connected; a store without one skips the test, saying so. */
export async function connectedFeed(store: KeyStore, context: TestContext): Promise<KeyChangeFeed> {
  const feed = store.changes
  if (!feed) return context.skip('the store has no change feed (store.changes)')
  await until(() => feed.connected)
  return feed
}
