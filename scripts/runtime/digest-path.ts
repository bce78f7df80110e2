// Prints which SHA-256 implementation @keyward/core's hashKey takes on this runtime, and nothing
// else: `node:crypto` when the runtime provides it through process.getBuiltinModule, else Web Crypto.
// Run by Bun and Deno (which run TypeScript directly) from the runtime matrix.
import { digestImplementation, sha256Hex, sha256HexWeb } from '../../packages/core/src/hash/digest.ts'

const fast = await sha256Hex('keyward')
if (fast !== (await sha256HexWeb('keyward'))) throw new Error('the two SHA-256 implementations disagree')
const builtin = (globalThis as { process?: { getBuiltinModule?: (id: string) => { hash?: unknown } } })
  .process?.getBuiltinModule
const variant = typeof builtin?.('node:crypto')?.hash === 'function' ? 'crypto.hash' : 'createHash'
console.log(`hashKey: ${digestImplementation === 'node' ? `node:crypto (${variant})` : 'Web Crypto'}`)
