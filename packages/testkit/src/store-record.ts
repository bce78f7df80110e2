import { hashKey, KEY_ALPHABET, type KeyRecord, keyPrefix } from '@keyward/core'

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
  }
}
