// The one runtime seam of core: SHA-256 as lower-case hex.
// On Node (and runtimes that provide node:crypto through process.getBuiltinModule) the
// digest is synchronous and fast; elsewhere Web Crypto's asynchronous digest is used.
// The choice is made once, when this module loads, never per call.

/** @internal What core uses of node:crypto. */
export type NodeCrypto = {
  hash?: {
    (algorithm: string, data: string | Uint8Array, encoding: 'hex' | 'latin1'): string
    (algorithm: string, data: Uint8Array, encoding: 'buffer'): Uint8Array
  }
  createHash: (algorithm: string) => { update(data: string): { digest(encoding: 'hex'): string } }
  createHmac: (
    algorithm: string,
    key: Uint8Array,
  ) => { update(data: string): { digest(encoding: 'hex'): string } }
}

type ProcessWithBuiltins = { getBuiltinModule?: (id: string) => unknown }

function loadNodeCrypto(): NodeCrypto | undefined {
  const proc = (globalThis as { process?: ProcessWithBuiltins }).process
  try {
    return proc?.getBuiltinModule?.('node:crypto') as NodeCrypto | undefined
  } catch {
    return undefined
  }
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'))
const encoder = new TextEncoder()

/** @internal SHA-256 through Web Crypto. */
export async function sha256HexWeb(input: string): Promise<string> {
  const bytes = new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(input)))
  let out = ''
  for (const b of bytes) out += HEX[b]
  return out
}

const nodeCrypto = loadNodeCrypto()

/** @internal SHA-256 through node:crypto, where the runtime provides it. */
export const sha256HexNode: ((input: string) => string) | undefined = nodeCrypto
  ? nodeCrypto.hash
    ? (
        (hash) => (input: string) =>
          hash('sha256', input, 'hex')
      )(nodeCrypto.hash)
    : (input: string) => nodeCrypto.createHash('sha256').update(input).digest('hex')
  : undefined

/** @internal Which implementation this runtime uses. */
export const digestImplementation: 'node' | 'web' = sha256HexNode ? 'node' : 'web'

/** @internal The digest of this runtime: a string on Node, a promise elsewhere. */
export const sha256Hex: (input: string) => string | Promise<string> = sha256HexNode ?? sha256HexWeb

/**
 * The SHA-256 hash of a key, as 64 lower-case hex characters: what a store keeps
 * and looks keys up by. The full key itself is never stored.
 *
 * @example
 * ```ts
 * const hash = await hashKey(key) // '9f86d08...'
 * ```
 */
export async function hashKey(key: string): Promise<string> {
  return sha256Hex(key)
}

/** An HMAC key that Web Crypto imported. */
type HmacKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>

// HMAC's block size for SHA-256, and the longest key whose HMAC the fast path computes in place.
const BLOCK = 64
const LONGEST = 1024
const DIGEST = 32

/**
 * @internal HMAC-SHA-256 with a fixed secret, as lower-case hex: synchronous on Node, a promise
 * elsewhere. On Node the padded secrets are computed once and each call is two `crypto.hash`
 * calls (a fresh `createHmac` costs several times as much). The inner digest comes back as a
 * latin1 string, one character a byte, and is copied into the outer block by hand: a `'buffer'`
 * digest allocates, which costs as much again as the hash. When the padded secret is ASCII (a
 * secret given as text usually is) the inner hash takes a string, which skips an encoding step.
 */
export function hmacSha256Hex(
  secret: Uint8Array,
  node: NodeCrypto | null | undefined = nodeCrypto,
): (input: string) => string | Promise<string> {
  const fast = node?.hash
  if (node && fast) {
    const key = new Uint8Array(BLOCK)
    key.set(secret.length > BLOCK ? (fast('sha256', secret, 'buffer') as Uint8Array) : secret)
    const inner = new Uint8Array(BLOCK + LONGEST * 3)
    const outer = new Uint8Array(BLOCK + DIGEST)
    let ascii = true
    for (let i = 0; i < BLOCK; i++) {
      inner[i] = key[i]! ^ 0x36
      outer[i] = key[i]! ^ 0x5c
      if (inner[i]! >= 0x80) ascii = false
    }
    // The inner pad as text, when every byte of it is ASCII (UTF-8 then encodes it unchanged).
    const innerText = ascii ? String.fromCharCode(...inner.subarray(0, BLOCK)) : null
    const slow = node.createHmac
    const innerDigest = (input: string): string => {
      if (innerText !== null) return fast('sha256', innerText + input, 'latin1')
      const { written } = encoder.encodeInto(input, inner.subarray(BLOCK))
      return fast('sha256', inner.subarray(0, BLOCK + written), 'latin1')
    }
    return (input) => {
      if (input.length > LONGEST) return slow('sha256', secret).update(input).digest('hex')
      const digest = innerDigest(input)
      for (let i = 0; i < DIGEST; i++) outer[BLOCK + i] = digest.charCodeAt(i)
      return fast('sha256', outer, 'hex')
    }
  }
  if (node) {
    const slow = node.createHmac
    return (input) => slow('sha256', secret).update(input).digest('hex')
  }
  let imported: Promise<HmacKey> | undefined
  return async (input) => {
    imported ??= crypto.subtle.importKey(
      'raw',
      secret as Uint8Array<ArrayBuffer>,
      { name: 'HMAC', hash: 'SHA-256' },
      false,
      ['sign'],
    )
    const data = encoder.encode(input) as Uint8Array<ArrayBuffer>
    const bytes = new Uint8Array(await crypto.subtle.sign('HMAC', await imported, data))
    let out = ''
    for (const b of bytes) out += HEX[b]
    return out
  }
}
