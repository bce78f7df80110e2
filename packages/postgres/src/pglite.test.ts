import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createKeyward, ErrorType, errorBody } from '@keyward/core'
import { runStoreConformance } from '@keyward/testkit'
import { afterAll, describe, expect, it } from 'vitest'
import { createPGliteKeyStore, pgliteDriver } from './pglite.js'
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
        { version: 5 },
        { version: 6 },
        { version: 7 },
        { version: 8 },
        { version: 9 },
        { version: 10 },
        { version: 11 },
        { version: 12 },
        { version: 13 },
        { version: 14 },
        { version: 15 },
        { version: 16 },
        { version: 17 },
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
})
