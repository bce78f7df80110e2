// How keys are hashed for storage: plain SHA-256 as the specification says, or, with peppers,
// HMAC-SHA-256 under the newest one of the key's SHA-256 (its 64 hex characters). Every hash of
// a key follows from its plain SHA-256, which the verification computes anyway (the cache and
// single flight are keyed by it): a presented key is looked up under every hash it may be
// stored under, in one store call, and a leak report that gives a plain hash still finds it.
import { hmacSha256Hex, sha256Hex } from './digest.js'

/** A server-side secret that keys are hashed with (`hashing.pepper` of `createKeyward`). */
export interface Pepper {
  /** Its name, stored beside each hash made with it: 1 to 32 letters, digits, `.`, `_` or `-`. */
  readonly id: string
  /** The secret: at least 32 bytes (a string counts its UTF-8 bytes). Never stored, cached or logged. */
  readonly secret: string | Uint8Array
}

/**
 * How keys are hashed for storage (option `hashing` of `createKeyward`).
 *
 * @example
 * ```ts
 * const hashing: HashingOptions = {
 *   pepper: [
 *     { id: '2025', secret: process.env.KEYWARD_PEPPER_2025! },
 *     { id: '2026', secret: process.env.KEYWARD_PEPPER_2026! }, // the newest: new keys use it
 *   ],
 * }
 * ```
 */
export interface HashingOptions {
  /**
   * Peppers, oldest first: new keys are stored as HMAC-SHA-256 under the last one, and keys
   * stored under any of them (or with no pepper, as plain SHA-256) keep verifying. At most 8.
   * Without it (the default), keys are stored as plain SHA-256.
   */
  readonly pepper?: readonly Pepper[]
}

/** @internal The hash a new key is stored under, and the pepper it was made with. */
export interface StoredHash {
  readonly hash: string
  readonly pepperId: string | null
}

/** @internal How a service hashes keys: for storage, and for a lookup. */
export interface KeyHashing {
  /** Whether any pepper is configured; without, a key has one hash, its plain SHA-256. */
  readonly peppered: boolean
  /** The hash of a new key and the pepper id it names. */
  stored(key: string): StoredHash | Promise<StoredHash>
  /**
   * The hashes a key may be stored under, from its plain SHA-256 (`plain`, first): then one per
   * pepper, newest first, in the order of {@link pepperIds}.
   */
  candidates(plain: string): string[] | Promise<string[]>
  /** The pepper id of each candidate, `null` for the plain hash first. */
  readonly pepperIds: readonly (string | null)[]
}

const ID = /^[A-Za-z0-9._-]{1,32}$/
const MOST = 8
const encoder = new TextEncoder()

const PLAIN: KeyHashing = {
  peppered: false,
  stored: (key) => {
    const hash = sha256Hex(key)
    return typeof hash === 'string'
      ? { hash, pepperId: null }
      : hash.then((h) => ({ hash: h, pepperId: null }))
  },
  candidates: (plain) => [plain],
  pepperIds: [null],
}

/** @internal Checks the option `hashing` (throws naming it) and builds the service's hashing. */
export function keyHashing(options: HashingOptions | undefined): KeyHashing {
  if (options === undefined) return PLAIN
  const where = 'createKeyward: option `hashing.pepper`'
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(
      'createKeyward: option `hashing` must be an object, { pepper: [{ id, secret }, ...] }.',
    )
  }
  const peppers = options.pepper
  if (peppers === undefined) return PLAIN
  if (!Array.isArray(peppers) || peppers.length === 0 || peppers.length > MOST) {
    throw new TypeError(`${where} must be an array of 1 to ${MOST} { id, secret }, oldest first.`)
  }
  const seen = new Set<string>()
  const hmacs = peppers.map((pepper: Pepper, i) => {
    const id = pepper?.id
    if (typeof id !== 'string' || !ID.test(id)) {
      throw new TypeError(`${where}[${i}].id must be 1 to 32 letters, digits, '.', '_' or '-'.`)
    }
    if (seen.has(id)) throw new TypeError(`${where}[${i}].id '${id}' is given twice.`)
    seen.add(id)
    const secret = typeof pepper.secret === 'string' ? encoder.encode(pepper.secret) : pepper.secret
    if (!(secret instanceof Uint8Array) || secret.length < 32) {
      throw new TypeError(
        `${where}[${i}].secret (pepper '${id}') must be a string or bytes of at least 32 bytes, got ${
          secret instanceof Uint8Array ? `${secret.length}` : typeof pepper.secret
        }.`,
      )
    }
    return hmacSha256Hex(secret.slice())
  })
  // Newest first: a key issued lately is the likeliest to be presented.
  const newestFirst = hmacs.reverse()
  const ids = peppers.map((pepper) => pepper.id).reverse()
  const newest = newestFirst[0]!
  const newestId = ids[0]!
  return {
    peppered: true,
    stored: async (key) => ({ hash: await newest(await sha256Hex(key)), pepperId: newestId }),
    candidates: (plain) => {
      const out = [plain]
      let pending = false
      for (const hmac of newestFirst) {
        const hash = hmac(plain)
        if (typeof hash !== 'string') pending = true
        out.push(hash as string)
      }
      return pending ? Promise.all(out) : out
    },
    pepperIds: [null, ...ids],
  }
}
