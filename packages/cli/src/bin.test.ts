import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { generateKey } from '@keyward/core'
import { afterAll, describe, expect, it } from 'vitest'

// The built binary, as `npx keyward` runs it (the root `pnpm test` builds it first).
const bin = fileURLToPath(new URL('../dist/bin.js', import.meta.url))
const keyward = (args: string[], input?: string, nodeOptions: string[] = []) =>
  spawnSync(process.execPath, [...nodeOptions, bin, ...args], { input, encoding: 'utf8', timeout: 20_000 })

// A module hook that makes loading a database driver (or Keyward's store on one of them) fail.
// The package's main entry holds no driver (the connection-string check the CLI reads from it).
const hooks = mkdtempSync(join(tmpdir(), 'keyward-bin-'))
writeFileSync(
  join(hooks, 'no-drivers.mjs'),
  `export async function resolve(specifier, context, next) {
    if (/^(pg|@electric-sql\\/pglite|@keyward\\/postgres\\/(pg|pglite))(\\/|$)/.test(specifier)) {
      throw new Error('a database driver was loaded: ' + specifier)
    }
    return next(specifier, context)
  }`,
)
writeFileSync(
  join(hooks, 'register.mjs'),
  `import { register } from 'node:module'\nregister(${JSON.stringify(pathToFileURL(join(hooks, 'no-drivers.mjs')).href)})\n`,
)
const noDrivers = ['--import', pathToFileURL(join(hooks, 'register.mjs')).href]
afterAll(() => rmSync(hooks, { recursive: true, force: true }))

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
      "keyward: Unknown command 'rotate'. Run 'keyward --help'.\n",
    ])
  })

  it('exits 3 when PostgreSQL refuses the connection, without printing the URL', () => {
    const started = Date.now()
    const result = keyward([
      'keys',
      'list',
      '--developer',
      'dev_1',
      '--pg-url',
      'postgres://operator:s3cret@127.0.0.1:1/none',
    ])
    expect(result.status).toBe(3)
    expect(result.stderr).toBe('keyward: Cannot open the store: connect ECONNREFUSED 127.0.0.1:1\n')
    expect(Date.now() - started).toBeLessThan(10_000)
  })

  it('loads no database driver for generate, check and hash', () => {
    const generated = keyward(['generate'], undefined, noDrivers)
    expect([generated.status, generated.stderr]).toEqual([0, ''])
    const key = generated.stdout.trim()
    expect(keyward(['check'], key, noDrivers).status).toBe(0)
    expect(keyward(['hash'], key, noDrivers).stdout).toMatch(/^[0-9a-f]{64}\n$/)
    // The hook does stop a store command, which does load a driver.
    const store = keyward(
      ['keys', 'list', '--developer', 'd', '--pg-url', 'postgres://127.0.0.1:1/none'],
      '',
      noDrivers,
    )
    expect(store.status).toBe(3)
    expect(store.stderr).toContain('a database driver was loaded: @keyward/postgres/pg')
  })
})
