// Deleting an owner as another process sees it: its change feed hears every deactivated key, so
// that the other process's verification cache drops them, and that process cannot create a key
// for the owner either.
import { createKeyward, ErrorType } from '@keyward/core'
import { afterEach, describe, expect, it } from 'vitest'
import type { PostgresKeyStore } from './base.js'
import { createPgKeyStore } from './pg.js'
import { PG_URL, uniqueSchema } from './test/harness.js'

/** Waits until `check` holds, polling every 10 ms, for at most 5 s. */
async function until(check: () => Promise<boolean>): Promise<void> {
  const end = Date.now() + 5000
  while (!(await check())) {
    if (Date.now() > end) throw new Error('the condition did not hold within 5 s')
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

describe.skipIf(!PG_URL)('deleting an owner across processes (set KEYWARD_PG_URL to run)', () => {
  const stores: PostgresKeyStore[] = []
  afterEach(async () => {
    const [first] = stores
    await first?.query(`DROP SCHEMA IF EXISTS "${first.schema}" CASCADE`)
    for (const store of stores.splice(0)) await store.close()
  })

  it("the other process's cache drops every key of the deleted owner, from the trigger's notifications", async () => {
    const schema = uniqueSchema()
    const open = async () => {
      const store = await createPgKeyStore(
        { connectionString: PG_URL as string, poolConfig: { max: 4 } },
        { schema, changeFeed: true, queryTimeoutMs: 30_000 },
      )
      stores.push(store)
      return store
    }
    const deleting = createKeyward({ store: await open(), trackLastUsed: false })
    const otherStore = await open()
    await until(async () => otherStore.changes?.connected === true)
    const other = createKeyward({ store: otherStore, cache: {}, trackLastUsed: false })

    const project = `proj-${crypto.randomUUID()}`
    const issued = await Promise.all(Array.from({ length: 3 }, () => deleting.issueProjectKey(project)))
    const requirement = { scope: 'project', projectId: project } as const
    const verdict = (key: string) =>
      other.authenticate({ projectKey: key }, requirement).then(
        () => 'accepted',
        (error: { type: string }) => error.type,
      )
    // Cached by the other process: a second verification of each is a hit.
    for (const { key } of issued) {
      await until(async () => (await verdict(key)) === 'accepted')
      expect(await verdict(key)).toBe('accepted')
    }
    expect(other.cacheStats()?.entries).toBe(3)

    expect(await deleting.deactivateOwnerKeys({ type: 'project', id: project })).toHaveLength(3)
    for (const { key } of issued) await until(async () => (await verdict(key)) === ErrorType.keyInvalid)
    expect(other.cacheStats()?.connected).toBe(true)
    await expect(other.issueProjectKey(project)).rejects.toMatchObject({ type: ErrorType.notFound })
  })

  it("the other process drops a project's cached owner when the project is closed, even without an active key", async () => {
    const schema = uniqueSchema()
    const open = async () => {
      const store = await createPgKeyStore(
        { connectionString: PG_URL as string, poolConfig: { max: 2 } },
        { schema, changeFeed: true, queryTimeoutMs: 30_000 },
      )
      stores.push(store)
      return store
    }
    const project = `proj-${crypto.randomUUID()}`
    const projects = new Map([[project, 'dev-1']])
    const projectOwner = (id: string) => projects.get(id) ?? null
    const deleting = createKeyward({ store: await open(), trackLastUsed: false, projectOwner })
    const otherStore = await open()
    await until(async () => otherStore.changes?.connected === true)
    const other = createKeyward({ store: otherStore, cache: {}, trackLastUsed: false, projectOwner })

    expect(await other.projectOwner(project)).toBe('dev-1')
    projects.delete(project) // the host's project row goes; the lookup would now say so
    expect(await other.projectOwner(project)).toBe('dev-1') // from the cache
    expect(await deleting.deactivateOwnerKeys({ type: 'project', id: project })).toEqual([])
    await until(async () => (await other.projectOwner(project)) === null)
  })
})
