import { afterEach, describe, expect, it, vi } from 'vitest'
import { MemoryKeyStore } from '../store/memory.js'
import { sha256HexNode } from './digest.js'

type ProcessWithBuiltins = { getBuiltinModule?: unknown }
const proc = (globalThis as { process?: ProcessWithBuiltins }).process

/**
 * Loads core's digest and key service afresh as on a runtime without node:crypto (Workers, a
 * browser): `process.getBuiltinModule` hidden while the modules load, so they take Web Crypto.
 */
async function loadWithoutNodeCrypto() {
  const saved = proc?.getBuiltinModule
  if (proc) proc.getBuiltinModule = undefined
  vi.resetModules()
  try {
    const digest = await import('./digest.js')
    const service = await import('../service/keyward.js')
    return { digest, service }
  } finally {
    if (proc) proc.getBuiltinModule = saved
  }
}

afterEach(() => {
  vi.resetModules()
})

// Runs on every runtime of the matrix (Node, Bun, Deno): the Web Crypto path on each one's own
// crypto.subtle, through the whole service, not only the digest function.
describe('the Web Crypto path of hashing', () => {
  it('is the one a runtime without node:crypto takes, and its digest is SHA-256', async () => {
    const { digest } = await loadWithoutNodeCrypto()
    expect(digest.digestImplementation).toBe('web')
    expect(digest.sha256HexNode).toBeUndefined()
    const hash = digest.sha256Hex('abc')
    expect(hash).toBeInstanceOf(Promise)
    expect(await hash).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad')
  })

  it('issues and verifies keys through the service, with the hashes node:crypto gives', async () => {
    const { digest, service } = await loadWithoutNodeCrypto()
    const keyward = service.createKeyward({ store: new MemoryKeyStore() })
    const { key, record } = await keyward.issueProjectKey('proj_1')
    expect(record.hash).toBe(await digest.sha256HexWeb(key))
    if (sha256HexNode) expect(record.hash).toBe(sha256HexNode(key))
    const auth = await keyward.authenticate({ projectKey: key }, { scope: 'project', projectId: 'proj_1' })
    expect(auth).toMatchObject({ scope: 'project', projectId: 'proj_1', projectKey: { id: record.id } })
    const other = `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`
    await expect(
      keyward.authenticate({ projectKey: other }, { scope: 'project', projectId: 'proj_1' }),
    ).rejects.toMatchObject({ type: 'key_invalid', status: 401 })
  })
})

// The runtime matrix names the runtime it runs the suite on; the suite proves it is there.
const expected = process.env.KEYWARD_TEST_RUNTIME
describe.skipIf(expected === undefined)('the runtime of the matrix (KEYWARD_TEST_RUNTIME, set by it)', () => {
  it(`runs this suite: ${expected ?? 'none named outside the matrix'}`, () => {
    const g = globalThis as { Bun?: unknown; Deno?: unknown }
    const actual = g.Bun !== undefined ? 'bun' : g.Deno !== undefined ? 'deno' : 'node'
    expect(actual).toBe(expected)
  })
})
