import { withCredits } from '../credits/model.js'
import type { KeyHashing } from '../hash/pepper.js'
import { keyPrefix } from '../key/display.js'
import { generateKey } from '../key/generate.js'
import type { KeyPolicies } from '../policy/policies.js'
import type { KeyOwner, KeyRecord } from '../store/types.js'
import type { NewKeyCredits } from './credits.js'

/** A newly issued key. `key` is the only copy of the full key: hand it over once, keep it nowhere. */
export interface IssuedKey {
  readonly key: string
  readonly record: KeyRecord
}

/** @internal A new key and its record, not yet stored: the only place a key is generated. */
export async function mintKey(
  hashing: KeyHashing,
  owner: KeyOwner,
  name: string | null,
  expiresAt: Date | null,
  createdAt: Date,
  policies: KeyPolicies = {},
  credits: NewKeyCredits = { remaining: null, refill: null, refilledAt: null },
): Promise<IssuedKey> {
  const key = generateKey()
  const stored = hashing.stored(key)
  const { hash, pepperId } = 'hash' in stored ? stored : await stored
  const record: KeyRecord = withCredits(
    {
      id: crypto.randomUUID(),
      hash,
      keyPrefix: keyPrefix(key),
      ownerType: owner.type,
      ownerId: owner.id,
      name,
      active: true,
      createdAt,
      expiresAt,
      lastUsedAt: null,
      replacedBy: null,
      ipAllowlist: policies.ipAllowlist ?? null,
      permissions: policies.permissions ?? null,
      metadata: policies.metadata ?? null,
    },
    credits,
  )
  // A plain hash names no pepper, as every store hands it back.
  const peppered = pepperId === null ? record : { ...record, pepperId }
  return { key, record: withLimits(peppered, policies.ratelimits) }
}

// A key's stored rate limits are on its record only when it has some, as a store hands it back.
const withLimits = (record: KeyRecord, ratelimits: KeyPolicies['ratelimits']): KeyRecord =>
  ratelimits && ratelimits.length > 0 ? { ...record, ratelimits } : record
