import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { generateKey } from '@keyward/core'
import { describe, expect, it } from 'vitest'

// The built binary, as `npx keyward` runs it (the root `pnpm test` builds it first).
const bin = fileURLToPath(new URL('../dist/bin.js', import.meta.url))
const keyward = (args: string[], input?: string) =>
  spawnSync(process.execPath, [bin, ...args], { input, encoding: 'utf8', timeout: 20_000 })

describe('the keyward binary', () => {
  it('is built (run pnpm build first)', () => {
    expect(existsSync(bin)).toBe(true)
  })

  it('exits with the code of the command, reading the key from a pipe', () => {
    const key = generateKey()
    const ok = keyward(['check'], `${key}\n`)
    expect([ok.status, ok.stdout, ok.stderr]).toEqual([
      0,
      `${key.slice(0, 8)}... is a well-formed developer key.\n`,
      '',
    ])
    const malformed = keyward(['check'], 'ak_0123456789abcdef\n')
    expect([malformed.status, malformed.stdout]).toEqual([
      1,
      'Not a well-formed developer key: Expected 35 characters, got 19. (key_malformed)\n',
    ])
    const usage = keyward(['rotate'])
    expect([usage.status, usage.stderr]).toEqual([
      2,
      "keyward: Unknown command: keyward rotate. Run 'keyward --help'.\n",
    ])
  })

  it('exits 3 when the store cannot be opened', () => {
    // A server that refuses connections: unavailable both before and after a driver is wired in.
    const result = keyward([
      'keys',
      'list',
      '--developer',
      'dev_1',
      '--pg-url',
      'postgres://127.0.0.1:1/none',
    ])
    expect(result.status).toBe(3)
    expect(result.stderr).toContain('keyward: Cannot open the store:')
  })
})
