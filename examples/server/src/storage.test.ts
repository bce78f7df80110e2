import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Redis } from 'ioredis'
import { describe, expect, it, vi } from 'vitest'
import { readConfig, type ServerConfig } from './config.js'
import { sqlOf } from './db/sql.js'
import { keywardOver } from './service.js'
import { openStorage, tokenSecret } from './storage.js'
import {
  createMysqlDatabase,
  createPgDatabase,
  describeBackends,
  MYSQL_URL,
  PG_URL,
} from './test/databases.js'
import { openTestStore, testRows } from './test/harness.js'

describeBackends('the access tokens signing secret (%s)', (backend) => {
  it('comes from the environment or lives with the process, and is never kept in the database', async () => {
    const { store, drop } = await openTestStore(backend)
    try {
      // What an earlier version kept in plain text next to the data.
      const sql = sqlOf(store)
      await sql.run(`INSERT INTO ${sql.dialect.table('settings')} (name, value) VALUES (?, ?)`, [
        'access_token_secret',
        'stored-in-plain-text-next-to-the-data',
      ])
      const configured = 'c'.repeat(32)
      expect(await tokenSecret(store, configured)).toEqual({ secret: configured, ephemeral: false })
      const first = await tokenSecret(store, undefined)
      const second = await tokenSecret(store, undefined)
      expect(first.ephemeral).toBe(true)
      expect(first.secret).not.toBe(second.secret)
      expect(await testRows(store)('SELECT value FROM app.settings')).toEqual([])
    } finally {
      await drop()
    }
  })
})

describe('whether verifications see every revocation at once (verificationsCurrent)', () => {
  it('holds on PGlite, which one process holds', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'keyward-storage-'))
    const { store, verificationsCurrent } = await openStorage(readConfig({ KEYWARD_DATA_DIR: dataDir }))
    try {
      expect(verificationsCurrent).toBe(true)
    } finally {
      await store.close()
      await rm(dataDir, { recursive: true, force: true })
    }
  }, 60_000)

  it('holds on SQLite, which one process holds; the start-up line names the file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'keyward-storage-'))
    const path = join(dir, 'keys.db')
    const { store, verificationsCurrent, description } = await openStorage(
      readConfig({ KEYWARD_SQLITE_PATH: path }),
    )
    try {
      expect([verificationsCurrent, description]).toEqual([true, `SQLite in ${path}`])
      // The file is this process's: a second opening is refused.
      await expect(openStorage(readConfig({ KEYWARD_SQLITE_PATH: path }))).rejects.toThrow()
    } finally {
      await store.close()
      await rm(dir, { recursive: true, force: true })
    }
  })

  it.skipIf(!MYSQL_URL)(
    'on MySQL, holds under strict revocation (the default with the cache) or without the cache; the start-up line names the server and database (set KEYWARD_MYSQL_URL to run)',
    async () => {
      const database = await createMysqlDatabase()
      try {
        const url = new URL(database.url)
        const opened = async (changes: Partial<ServerConfig>) => {
          const settings = readConfig({ KEYWARD_MYSQL_URL: database.url })
          const { store, verificationsCurrent, description } = await openStorage({ ...settings, ...changes })
          await store.close()
          return { verificationsCurrent, description }
        }
        const where = `MySQL at ${url.hostname}:${url.port || 3306}${url.pathname}`
        expect(await opened({})).toEqual({
          verificationsCurrent: true,
          description: `${where}; strict revocation: a revocation answers 500 ms after its commit`,
        })
        expect(await opened({ revocationBoundMs: 800 })).toEqual({
          verificationsCurrent: true,
          description: `${where}; strict revocation: a revocation answers 800 ms after its commit`,
        })
        expect(await opened({ revocationBoundMs: 'off' })).toEqual({
          verificationsCurrent: false,
          description: where,
        })
        expect(await opened({ cache: false, revocationBoundMs: 'off' })).toEqual({
          verificationsCurrent: true,
          description: where,
        })
      } finally {
        await database.drop()
      }
    },
    60_000,
  )

  it.skipIf(!PG_URL)(
    'on PostgreSQL, holds under strict revocation (the default with the cache) or with every key read from the primary, not with the cache alone (set KEYWARD_PG_URL to run)',
    async () => {
      const database = await createPgDatabase()
      try {
        // The server's settings for this database, as readConfig makes them, with changes.
        const current = async (changes: Partial<ServerConfig>) => {
          const settings = readConfig({ KEYWARD_PG_URL: database.url })
          const { store, verificationsCurrent, description } = await openStorage({ ...settings, ...changes })
          await store.close()
          // The start-up line names strict revocation where it is on.
          const strict = changes.revocationBoundMs !== 'off' && changes.cache !== false
          expect(description.includes('strict revocation')).toBe(
            strict || typeof changes.revocationBoundMs === 'number',
          )
          return verificationsCurrent
        }
        expect(await current({})).toBe(true) // the default: the cache, under strict revocation
        expect(await current({ revocationBoundMs: 'off' })).toBe(false) // the cache alone
        expect(await current({ revocationBoundMs: 250 })).toBe(true)
        expect(await current({ cache: false })).toBe(true)
        expect(await current({ cache: false, revocationBoundMs: 'off' })).toBe(true)
        // The change feed relayed through Redis, when there is one to run it on.
        if (process.env.KEYWARD_REDIS_URL) {
          const settings = readConfig({
            KEYWARD_PG_URL: database.url,
            KEYWARD_REDIS_URL: process.env.KEYWARD_REDIS_URL,
            KEYWARD_FEED_FRESHNESS: 'redis',
          })
          const { store, description } = await openStorage(settings)
          try {
            expect(description).toContain('the change feed relayed through Redis')
            const feed = store.changes as unknown as { connected: boolean; leading: boolean }
            const deadline = Date.now() + 20_000
            while (!feed.connected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
            expect(feed.connected).toBe(true)
            expect(feed.leading).toBe(true)
          } finally {
            await store.close()
            // The relay's keys for this database (its name is in their prefix).
            const redis = new Redis(process.env.KEYWARD_REDIS_URL)
            const database_ = new URL(database.url).pathname
            const keys = await redis.keys(`keyward:*${database_}:*`)
            if (keys.length > 0) await redis.del(...keys)
            await redis.quit()
          }
        }
      } finally {
        await database.drop()
      }
    },
  )

  it.skipIf(!PG_URL)(
    'on PostgreSQL, the default settings revoke strictly: once a revocation returns, another server refuses the key it holds in its cache (set KEYWARD_PG_URL to run)',
    async () => {
      const database = await createPgDatabase()
      const settings = readConfig({ KEYWARD_PG_URL: database.url })
      const first = await openStorage(settings)
      const second = await openStorage(settings)
      try {
        // The start-up line says so.
        expect(first.description).toMatch(
          /; strict revocation: a revocation answers 250 ms after its commit$/,
        )
        const [revoking, holding] = [first, second].map(({ store }) =>
          keywardOver(store, undefined, undefined, true),
        )
        for (let round = 0; round < 5; round++) {
          const { key, record } = await revoking!.issueDeveloperKey(`dev_${round}`)
          const credentials = { developerKey: key }
          // Verified until the other server holds it (not before its feed is fresh, nor from a lookup
          // that overlapped the issue's notification).
          await vi.waitFor(async () => {
            await holding!.authenticate(credentials, { scope: 'developer' })
            expect(holding!.authenticateNow(credentials, { scope: 'developer' })).toMatchObject({
              developerId: `dev_${round}`,
            })
          })
          await revoking!.deactivateKey(record.id)
          // No wait for the change feed: the revocation returned only once every cache had heard it.
          await expect(holding!.authenticate(credentials, { scope: 'developer' })).rejects.toMatchObject({
            type: 'key_invalid',
          })
        }
      } finally {
        await Promise.all([first.store.close(), second.store.close()])
        await database.drop()
      }
    },
  )
})
