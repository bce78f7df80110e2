// The server's storage as main.ts opens it, behind PgBouncer in transaction mode: the settings an
// operator gives (prepared statements off, the change feed on a direct URL) make a store whose
// cache hears revocations. The HTTP suites run through PgBouncer too (the `pgbouncer` backend).
import { ErrorType } from '@keyward/core'
import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'
import { ConfigError, readConfig } from './config.js'
import { behindTransactionPooler } from './db/pooler-probe.js'
import { keywardOver } from './service.js'
import { openStorage } from './storage.js'
import { createPgDatabase, PGBOUNCER_MISSING, pgBouncer } from './test/databases.js'

const skipped = PGBOUNCER_MISSING ? ` (skipped: ${PGBOUNCER_MISSING})` : ''

describe.skipIf(PGBOUNCER_MISSING)(`the server through PgBouncer in transaction mode${skipped}`, () => {
  const cleanup: (() => Promise<void>)[] = []
  afterAll(async () => {
    for (const step of cleanup.reverse()) await step()
  })

  it('refuses to start through it with prepared statements on, naming the setting; directly, it starts', async () => {
    const database = await createPgDatabase()
    cleanup.push(database.drop)
    const through = (await pgBouncer()).through(database.url)
    expect(await behindTransactionPooler(through)).toBe(true)
    expect(await behindTransactionPooler(database.url)).toBe(false)
    const refused = await openStorage(readConfig({ KEYWARD_PG_URL: through, KEYWARD_CACHE: 'off' })).then(
      () => undefined,
      (error: Error) => error,
    )
    expect(refused).toBeInstanceOf(ConfigError)
    expect(refused?.message).toMatch(
      /^KEYWARD_PG_URL goes through a transaction pooler .*set KEYWARD_PG_PREPARED_STATEMENTS=off/,
    )
  })

  it('opens with KEYWARD_PG_PREPARED_STATEMENTS=off and KEYWARD_PG_LISTEN_URL; its cache hears revocations', async () => {
    const database = await createPgDatabase()
    cleanup.push(database.drop)
    const config = readConfig({
      KEYWARD_PG_URL: (await pgBouncer()).through(database.url),
      KEYWARD_PG_LISTEN_URL: database.url,
      KEYWARD_PG_PREPARED_STATEMENTS: 'off',
    })
    const { store, description } = await openStorage(config)
    cleanup.push(() => store.close())
    expect(description).toMatch(/^PostgreSQL at 127\.0\.0\.1:\d+\/kw_server_/)
    const keyward = keywardOver(store, undefined, undefined, config.cache)
    const { key, record } = await keyward.issueProjectKey('p1')
    const outcome = () =>
      keyward.authenticate({ projectKey: key }, { scope: 'project', projectId: 'p1' }).then(
        () => 'accepted',
        (error: { type: string }) => error.type,
      )
    // Verified once from the database, then from the cache.
    for (let i = 0; i < 50 && keyward.cacheStats()?.entries !== 1; i++) {
      expect(await outcome()).toBe('accepted')
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    expect(keyward.cacheStats()?.entries).toBe(1)
    // Revoked by another process (here SQL on a connection of its own): only the feed can tell.
    const other = new pg.Client({ connectionString: database.url })
    await other.connect()
    await other.query('UPDATE keyward.api_keys SET active = false WHERE id = $1', [record.id])
    await other.end()
    let answer = await outcome()
    for (let i = 0; i < 500 && answer === 'accepted'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10))
      answer = await outcome()
    }
    expect(answer).toBe(ErrorType.keyInvalid)
  })
})
