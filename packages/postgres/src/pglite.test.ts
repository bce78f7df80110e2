import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createKeyward, ErrorType, errorBody } from '@keyward/core'
import { runStoreConformance } from '@keyward/testkit'
import { afterAll, describe, expect, it } from 'vitest'
import { createPGliteKeyStore, DataDirInUseError, pgliteDriver } from './pglite.js'
import { pgliteDatabase, pgliteHarness } from './test/harness.js'
import { runPostgresScenarios } from './test/scenarios.js'
import { runSchemaUpgrade } from './test/upgrade.js'

afterAll(async () => {
  await (await pgliteDatabase()).close()
})

runStoreConformance({ name: 'PostgresKeyStore on PGlite', makeStore: pgliteHarness })
runPostgresScenarios('PGlite', pgliteHarness)
runSchemaUpgrade('PGlite', async () => ({
  driver: pgliteDriver(await pgliteDatabase(), { queryTimeoutMs: 30_000 }),
  close: async () => {},
}))

describe('PGlite driver', () => {
  it('fails closed with 503 store_unavailable once the database is closed', async () => {
    const store = await createPGliteKeyStore()
    const keyward = createKeyward({ store })
    const { key } = await keyward.issueProjectKey('p1')
    await keyward.authenticate({ projectKey: key }, { scope: 'project', projectId: 'p1' })
    await store.close()
    const error = await keyward
      .authenticate({ projectKey: key }, { scope: 'project', projectId: 'p1' })
      .catch((e: unknown) => e)
    expect(error).toMatchObject({ type: ErrorType.storeUnavailable, status: 503 })
    expect(errorBody(error)).toEqual({
      detail: [{ loc: [], msg: 'The key store is unavailable. Try again later.', type: 'store_unavailable' }],
    })
  })

  it('keeps keys in a data directory across restarts, migrating only once', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'keyward-pglite-'))
    try {
      const first = await createPGliteKeyStore({ dataDir })
      const { key, record } = await createKeyward({ store: first }).issueDeveloperKey('dev-1', {
        name: 'laptop',
      })
      await first.close()

      const second = await createPGliteKeyStore({ dataDir })
      const auth = await createKeyward({ store: second }).authenticate(
        { developerKey: key },
        { scope: 'developer' },
      )
      expect(auth.developerKey).toEqual({ id: record.id, keyPrefix: record.keyPrefix })
      expect(await second.query('SELECT version FROM keyward.keyward_migrations ORDER BY version')).toEqual([
        { version: 1 },
        { version: 2 },
        { version: 3 },
        { version: 4 },
      ])
      await second.close()
    } finally {
      await rm(dataDir, { recursive: true, force: true })
    }
  })

  it('checks its options when built', () => {
    expect(() => pgliteDriver({} as never)).toThrow('pgliteDriver: expected a PGlite database.')
    expect(() =>
      pgliteDriver({ query: async () => ({}), transaction: async () => ({}) } as never, {
        queryTimeoutMs: 0,
      }),
    ).toThrow('pgliteDriver: option `queryTimeoutMs` must be a positive integer, got 0.')
  })

  it('refuses a data directory that a database has open, and opens it once closed', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'keyward-pglite-'))
    try {
      const first = await createPGliteKeyStore({ dataDir })
      await createKeyward({ store: first }).issueProjectKey('p1')
      for (const given of [dataDir, `file://${dataDir}`]) {
        const error = await createPGliteKeyStore({ dataDir: given }).catch((e: unknown) => e)
        expect(error).toBeInstanceOf(DataDirInUseError)
        expect(error).toMatchObject({
          name: 'DataDirInUseError',
          dataDir: given,
          message:
            `The PGlite data directory ${given} is open in another process (it has a postmaster.pid): ` +
            'PGlite allows one process per directory, and two corrupt it. Stop that process first. ' +
            'If no process has it open (one that was killed rather than stopped), delete that ' +
            'postmaster.pid and try again.',
        })
      }
      await first.close()

      const second = await createPGliteKeyStore({ dataDir })
      expect(await second.listKeysByOwner({ type: 'project', id: 'p1' })).toHaveLength(1)
      await second.close()
    } finally {
      await rm(dataDir, { recursive: true, force: true })
    }
  }, 60_000) // two databases on disk: PGlite's start is slow on a loaded machine

  it('refuses a postmaster.pid left behind, until it is deleted', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'keyward-pglite-'))
    try {
      await writeFile(join(dataDir, 'postmaster.pid'), '-42\n')
      await expect(createPGliteKeyStore({ dataDir })).rejects.toBeInstanceOf(DataDirInUseError)
      await rm(join(dataDir, 'postmaster.pid'))
      const store = await createPGliteKeyStore({ dataDir })
      await store.close()
    } finally {
      await rm(dataDir, { recursive: true, force: true })
    }
  })
})
