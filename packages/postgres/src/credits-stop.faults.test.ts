// A clean stop while PostgreSQL cannot be reached (a proxy in front of it that is cut: connections
// closed, new ones refused): the credits a process leased and did not spend are given back if the
// database comes back within `credits.returnTimeoutMs`, and otherwise reported as stranded, by key
// prefix, through the host's hook; `keyward.close()` resolves either way.
import { createKeyward, type KeywardEvent } from '@keyward/core'
import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'
import type { PostgresKeyStore } from './base.js'
import { createPgKeyStore } from './pg.js'
import { PG_URL, uniqueSchema } from './test/harness.js'
import { TcpProxy } from './test/tcp-proxy.js'

const RETURN_TIMEOUT_MS = 2000
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe.skipIf(!PG_URL)(
  'credits at a clean stop while PostgreSQL is down (set KEYWARD_PG_URL to run)',
  () => {
    const schema = uniqueSchema()
    const cleanups: Array<() => Promise<unknown>> = []
    afterAll(async () => {
      for (const step of cleanups.reverse()) await step()
      const admin = new pg.Client({ connectionString: PG_URL })
      await admin.connect()
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
      await admin.end()
    })

    /** A service through a proxy of its own, with a key of 1,000 credits of which 1 is spent. */
    async function leasing() {
      const url = new URL(PG_URL!)
      const proxy = await TcpProxy.start(url.hostname, Number(url.port || 5432))
      cleanups.push(() => proxy.stop())
      const store = await createPgKeyStore(
        { connectionString: proxy.through(PG_URL!) },
        { schema, queryTimeoutMs: 2000 },
      )
      cleanups.push(() => store.close())
      const events: KeywardEvent[] = []
      const keyward = createKeyward({
        store,
        credits: { returnTimeoutMs: RETURN_TIMEOUT_MS },
        onEvent: (event) => events.push(event),
      })
      const { key, record } = await keyward.issueProjectKey('proj-stop', { remaining: 1000 })
      const auth = await keyward.authenticate(
        { projectKey: key },
        { scope: 'project', projectId: 'proj-stop' },
      )
      expect(await keyward.spendCredits(auth.projectKey, 1)).toEqual({ 'x-credits-remaining': '999' })
      return { proxy, store, keyward, events, record }
    }

    async function storedRemaining(id: string): Promise<number | null | undefined> {
      const direct: PostgresKeyStore = await createPgKeyStore({ connectionString: PG_URL! }, { schema })
      try {
        return (await direct.findKeyById(id))?.remaining
      } finally {
        await direct.close()
      }
    }

    it('gives the leased credits back when the database returns within returnTimeoutMs', async () => {
      const { proxy, keyward, events, record } = await leasing()
      expect(await storedRemaining(record.id)).toBeLessThan(999) // a block is leased
      await proxy.stop()
      await sleep(100) // the pool drops its cut connections
      setTimeout(() => void proxy.restart(), 700)
      await keyward.close()
      expect(events.filter((event) => event.type === 'credits.stranded')).toEqual([])
      expect(await storedRemaining(record.id)).toBe(999)
    })

    it('reports the credits it could not give back by key prefix, and resolves, when the database stays down', async () => {
      const { proxy, keyward, events, record } = await leasing()
      const leased = 999 - ((await storedRemaining(record.id)) ?? 0)
      expect(leased).toBeGreaterThan(0)
      await proxy.stop()
      await sleep(100)
      const started = performance.now()
      await keyward.close()
      const elapsed = performance.now() - started
      expect(elapsed).toBeGreaterThanOrEqual(RETURN_TIMEOUT_MS - 1100)
      expect(elapsed).toBeLessThan(RETURN_TIMEOUT_MS + 5000)
      expect(events.filter((event) => event.type === 'credits.stranded')).toEqual([
        { type: 'credits.stranded', keyId: record.id, keyPrefix: record.keyPrefix, credits: leased },
      ])
      await proxy.restart()
      expect(await storedRemaining(record.id)).toBe(999 - leased)
    })
  },
)
