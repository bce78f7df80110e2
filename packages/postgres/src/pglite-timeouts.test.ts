// What a timeout does on PGlite, with PGlite really held by a slow transaction: a caller told
// that its write timed out never finds it written later, and a write that started is waited for.
import { PGlite } from '@electric-sql/pglite'
import { createKeyward, ErrorType } from '@keyward/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { PostgresKeyStore } from './base.js'
import { QueryTimeoutError } from './driver.js'
import { createPGliteKeyStore } from './pglite.js'
import { uniqueSchema } from './test/harness.js'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('PGlite driver timeouts', () => {
  let db: PGlite
  beforeAll(async () => {
    db = await PGlite.create()
  })
  afterAll(async () => {
    await db.close()
  })

  const open = (queryTimeoutMs: number) =>
    createPGliteKeyStore({ db }, { schema: uniqueSchema(), queryTimeoutMs })

  // Holds PGlite for about `ms`: a transaction that sleeps in the database, then in JavaScript.
  const hold = (ms: number) =>
    db.transaction(async (tx) => {
      await tx.query('SELECT pg_sleep(0.05)')
      await sleep(ms)
    })

  const activeKeys = async (store: PostgresKeyStore, developer: string) =>
    (await store.listKeysByOwner({ type: 'developer', id: developer })).filter((key) => key.active)

  it('a creation whose time passes while PGlite is held never happens, and the limit stays whole', async () => {
    const store = await open(150)
    const keyward = createKeyward({ store })
    const developer = 'dev-stalled'
    const held = hold(800)
    const results = await Promise.allSettled(
      Array.from({ length: 12 }, () => keyward.issueDeveloperKey(developer)),
    )
    await held
    for (const result of results) {
      expect(result).toMatchObject({
        status: 'rejected',
        reason: { type: ErrorType.storeUnavailable, status: 503 },
      })
      const cause = (result as PromiseRejectedResult).reason.cause
      expect(cause).toBeInstanceOf(QueryTimeoutError)
      expect(cause.outcome).toBe('none')
    }
    // PGlite is free again and has run everything it was given: none of those keys exists.
    await sleep(50)
    expect(await activeKeys(store, developer)).toEqual([])
    const [{ count }] = (await store.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM "${store.schema}".api_keys`,
    )) as [{ count: number }]
    expect(count).toBe(0)
    // The 10-key limit was not eaten by the failed creations.
    for (let i = 0; i < 10; i++) await keyward.issueDeveloperKey(developer)
    await expect(keyward.issueDeveloperKey(developer)).rejects.toMatchObject({
      type: ErrorType.limitExceeded,
    })
  })

  it('callers are told exactly what happened when some start in time and others do not', async () => {
    const store = await open(300)
    const developer = 'dev-mixed'
    // Each creation holds PGlite for a while: the first ones start in time, the later ones wait too long.
    const slow = Array.from({ length: 8 }, (_, i) =>
      store.transaction(async (tx) => {
        await sleep(60)
        return createKeyward({ store: tx.store }).issueDeveloperKey(developer, { name: `slow-${i}` })
      }),
    )
    const results = await Promise.allSettled(slow)
    const created = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value.record.id] : []))
    const refused = results.filter((r) => r.status === 'rejected')
    expect(created.length).toBeGreaterThan(0)
    expect(refused.length).toBeGreaterThan(0)
    for (const r of refused) expect((r as PromiseRejectedResult).reason).toBeInstanceOf(QueryTimeoutError)
    await sleep(100)
    expect((await activeKeys(store, developer)).map((key) => key.id).sort()).toEqual(created.sort())
  })

  it('an operation that started before its time passed is waited for, and its caller gets the key', async () => {
    const store = await open(100)
    const { key, record } = await store.transaction(async (tx) => {
      await sleep(300) // three times the timeout, after the transaction began
      return createKeyward({ store: tx.store }).issueProjectKey('p-slow')
    })
    const auth = await createKeyward({ store }).authenticate(
      { projectKey: key },
      { scope: 'project', projectId: 'p-slow' },
    )
    expect(auth.projectKey?.id).toBe(record.id)
  })
})
