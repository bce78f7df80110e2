import { createKeyward, type KeyChangeEvent, type KeyChangeFeed } from '@keyward/core'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import type { PostgresKeyStore } from './base.js'
import { createPgKeyStore, pgChangeFeed } from './pg.js'
import { createPGliteKeyStore } from './pglite.js'
import { PG_URL, pgliteDatabase, uniqueSchema } from './test/harness.js'

afterAll(async () => {
  await (await pgliteDatabase()).close()
})

/** Resolves with the first event that `match` accepts (or rejects after 5 s). */
function next(feed: KeyChangeFeed, match: (event: KeyChangeEvent) => boolean): Promise<KeyChangeEvent> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop()
      reject(new Error('no such event within 5 s'))
    }, 5000)
    const stop = feed.subscribe((event) => {
      if (!match(event)) return
      clearTimeout(timer)
      stop()
      resolve(event)
    })
  })
}

function feedScenarios(name: string, open: (schema: string) => Promise<PostgresKeyStore>) {
  describe(`the change feed on ${name}`, () => {
    const stores: PostgresKeyStore[] = []
    // A store on a schema of its own, or another process's store on the schema of one.
    const make = async (schema = uniqueSchema()) => {
      const store = await open(schema)
      stores.push(store)
      return store
    }
    afterEach(async () => {
      for (const store of stores.splice(0)) {
        await store.query(`DROP SCHEMA IF EXISTS "${store.schema}" CASCADE`)
        await store.close()
      }
    })

    it('reports every write by hash, id and WAL position, never with the key, and only its own schema', async () => {
      const store = await make()
      const other = await make()
      const feed = store.changes!
      expect(feed.connected).toBe(true)
      const heard: KeyChangeEvent[] = []
      feed.subscribe((event) => heard.push(event))

      const keyward = createKeyward({ store })
      // Each write is heard twice: at once from the store itself (no position), then from the
      // trigger's notification, which every process hears.
      const fromTrigger = (event: KeyChangeEvent) => event.type === 'changed' && event.position !== undefined
      const issuing = next(feed, fromTrigger)
      const { key, record } = await keyward.issueDeveloperKey('dev-1')
      expect(await issuing).toEqual({
        type: 'changed',
        hash: record.hash,
        id: record.id,
        position: expect.stringMatching(/^[0-9A-F]+\/[0-9A-F]+$/),
      })
      const deactivating = next(feed, fromTrigger)
      await keyward.deactivateKey(record.id)
      expect(await deactivating).toMatchObject({ type: 'changed', hash: record.hash, id: record.id })

      // A write by SQL of one's own (not through the store) is heard too.
      const sqlWrite = next(feed, fromTrigger)
      await store.query(`UPDATE "${store.schema}".api_keys SET active = true WHERE id = $1`, [record.id])
      expect(await sqlWrite).toMatchObject({ hash: record.hash })

      // Another schema's writes are not this store's changes.
      await createKeyward({ store: other }).issueProjectKey('p-1')
      await createKeyward({ store }).issueProjectKey('p-2')
      await new Promise((resolve) => setTimeout(resolve, 50))
      expect(heard.filter(fromTrigger)).toHaveLength(4)
      expect(heard.filter((event) => event.type === 'changed' && event.position === undefined)).toHaveLength(
        3,
      )
      expect(JSON.stringify(heard)).not.toContain(key)
    })

    it("tells another process of a change of a key's low-credits threshold, by SQL of one's own too: its cache forgets the key", async () => {
      const store = await make()
      const reader = await make(store.schema)
      const { key, record } = await createKeyward({ store }).issueProjectKey('p-1', {
        remaining: 100,
        creditsLowAt: { remaining: 10 },
      })
      const cached = createKeyward({ store: reader, cache: {} })
      const project = { scope: 'project', projectId: 'p-1' } as const
      // Once the reader has heard the key's creation and its feed is fresh, the key stays cached.
      await expect
        .poll(async () => {
          await cached.authenticate({ projectKey: key }, project)
          return cached.cacheStats()?.entries
        })
        .toBe(1)
      const fromTrigger = (event: KeyChangeEvent) =>
        event.type === 'changed' && event.hash === record.hash && event.position !== undefined
      // The threshold alone changes: no other column's trigger fires.
      const heard = next(reader.changes!, fromTrigger)
      await store.query(
        `UPDATE "${store.schema}".api_keys SET credits_low_at = '{"percent": 20}'::jsonb WHERE id = $1`,
        [record.id],
      )
      expect(await heard).toMatchObject({ type: 'changed', hash: record.hash, id: record.id })
      expect(cached.cacheStats()).toMatchObject({ entries: 0 })
      // The same value again changes nothing, and tells nothing.
      const again: KeyChangeEvent[] = []
      const stop = reader.changes!.subscribe((event) => fromTrigger(event) && again.push(event))
      await store.query(
        `UPDATE "${store.schema}".api_keys SET credits_low_at = '{"percent": 20}'::jsonb WHERE id = $1`,
        [record.id],
      )
      const marker = next(
        reader.changes!,
        (event) => event.type === 'changed' && event.position !== undefined,
      )
      await createKeyward({ store }).issueProjectKey('p-2')
      await marker
      stop()
      expect(again).toEqual([])
      await cached.close()
    })
  })
}

feedScenarios('PGlite, in process', async (schema) =>
  createPGliteKeyStore({ db: await pgliteDatabase() }, { schema }),
)

describe.skipIf(!PG_URL)('the change feed on PostgreSQL (set KEYWARD_PG_URL to run)', () => {
  it('checks its options when built', () => {
    expect(() => pgChangeFeed({} as never)).toThrow('pgChangeFeed: option `connectionString` is required')
    expect(() => pgChangeFeed({ connectionString: 'postgres://x', heartbeatMs: 0 })).toThrow(
      'pgChangeFeed: option `heartbeatMs` must be a positive integer, got 0.',
    )
    expect(() =>
      pgChangeFeed({ connectionString: 'postgres://x', freshnessSource: 'gossip' as 'beacon' }),
    ).toThrow("pgChangeFeed: option `freshnessSource` must be 'beacon', 'fences' or 'redis', got gossip.")
  })
  feedScenarios('PostgreSQL', (schema) =>
    createPgKeyStore({ connectionString: PG_URL as string }, { schema, changeFeed: true }),
  )
})
