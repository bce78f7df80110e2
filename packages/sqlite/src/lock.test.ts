import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { createSqliteKeyStore, DatabaseInUseError } from './index.js'
import { killChildren, startChild } from './test/child.js'

// Real processes on one file; the children run the built store (`pnpm build` first).
const dir = mkdtempSync(join(tmpdir(), 'keyward-sqlite-lock-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
afterEach(killChildren)
let files = 0
const file = () => join(dir, `lock-${files++}.db`)

describe('the SQLite file is one process’s', () => {
  it('refuses a second process while the first lives, naming the file, and lets it in at once after kill -9', async () => {
    const path = file()
    const holder = startChild(path, 'hold')
    expect(await holder.line((line) => line.ready === true || line.error !== undefined)).toMatchObject({
      ready: true,
    })
    const second = startChild(path, 'hold', { SQLITE_WAIT_MS: '0' })
    expect(await second.line(() => true)).toMatchObject({
      name: 'DatabaseInUseError',
      error: expect.stringContaining(`The SQLite database ${path} is open in another process`),
    })
    // In this process too, through the same error.
    await expect(createSqliteKeyStore({ path, waitMs: 0 })).rejects.toBeInstanceOf(DatabaseInUseError)
    // The operating system lets the lock go with the killed process: no stale lock to wait out.
    await holder.kill()
    const started = Date.now()
    const store = await createSqliteKeyStore({ path, waitMs: 0 })
    expect(Date.now() - started).toBeLessThan(5000)
    await store.close()
  })

  it('lets the file go on close, to this process or another', async () => {
    const path = file()
    const first = await createSqliteKeyStore({ path })
    await expect(createSqliteKeyStore({ path, waitMs: 0 })).rejects.toThrow(DatabaseInUseError)
    await first.close()
    const child = startChild(path, 'hold', { SQLITE_WAIT_MS: '0' })
    expect(await child.line(() => true)).toMatchObject({ ready: true })
  })

  it('checks its options when called, naming them', async () => {
    await expect(createSqliteKeyStore({} as never)).rejects.toThrow(
      'createSqliteKeyStore: option `path` must be a file path or `:memory:`.',
    )
    await expect(createSqliteKeyStore({ path: file(), waitMs: -1 })).rejects.toThrow(
      'createSqliteKeyStore: option `waitMs` must be a non-negative integer, got -1.',
    )
    await expect(createSqliteKeyStore({ path: file(), tablePrefix: 'Bad-' })).rejects.toThrow(
      /option `tablePrefix` must be a lower-case SQL identifier start/,
    )
  })
})
