// The one runtime seam of core: SHA-256 as lower-case hex.
// On Node (and runtimes that provide node:crypto through process.getBuiltinModule) the
// digest is synchronous and fast; elsewhere Web Crypto's asynchronous digest is used.
// The choice is made once, when this module loads, never per call.

type NodeCrypto = {
  hash?: (algorithm: string, data: string, encoding: 'hex') => string
  createHash: (algorithm: string) => { update(data: string): { digest(encoding: 'hex'): string } }
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
