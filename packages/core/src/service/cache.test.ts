import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { LRUCache } from 'lru-cache'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { errorBody, KeywardError } from '../errors/error.js'
import { ErrorType } from '../errors/types.js'
import { hashKey } from '../hash/digest.js'
import { generateKey } from '../key/generate.js'
import { KeyChangeHub } from '../store/feed.js'
import { MemoryKeyStore } from '../store/memory.js'
import type { KeyStore } from '../store/types.js'
import type { KeywardEvent } from './events.js'
import { createKeyward } from './keyward.js'
import type { KeywardOptions } from './options.js'

const project = { scope: 'project', projectId: 'proj_a' } as const

/**
 * A memory store that counts lookups by hash, with a change feed the test drives: it hears
 * the inner store's writes only while `relay` is on, and connects and drops on command.
 */
function countingStore() {
  const inner = new MemoryKeyStore()
  const changes = new KeyChangeHub({ connected: true })
  const control = { relay: true, lookups: 0 }
  inner.changes.subscribe((event) => {
    if (control.relay && changes.connected) changes.publish(event)
  })
  const store: KeyStore & { changes: KeyChangeHub } = {
    insertKey: (record, limit) => inner.insertKey(record, limit),
    findKeyByHash: (hash) => {
      control.lookups++
      return inner.findKeyByHash(hash)
    },
    findKeyById: (id) => inner.findKeyById(id),
    listKeysByOwner: (owner) => inner.listKeysByOwner(owner),
    setKeyActive: (id, active, limit, now) => inner.setKeyActive(id, active, limit, now),
    rollKey: (id, replacement, previousExpiresAt, now) =>
      inner.rollKey(id, replacement, previousExpiresAt, now),
    recordKeyUse: (uses) => inner.recordKeyUse(uses),
    findKeysByHashes: (hashes) => inner.findKeysByHashes(hashes),
    deactivateKeys: (ids) => inner.deactivateKeys(ids),
    changes,
  }
  return { inner, store, control }
}

function setup(extra: Partial<KeywardOptions> = {}) {
  const { inner, store, control } = countingStore()
  const events: KeywardEvent[] = []
  const keyward = createKeyward({ store, cache: {}, onEvent: (event) => events.push(event), ...extra })
  return { inner, store, control, keyward, events }
}

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => 'accepted',
    (error: { type: string }) => error.type,
  )

afterEach(() => {
  vi.restoreAllMocks()
})

describe('the verification cache', () => {
  it('answers a key seen before from memory: valid, inactive and unknown alike', async () => {
    const { keyward, control } = setup()
    const valid = (await keyward.issueProjectKey('proj_a')).key
    const inactive = await keyward.issueProjectKey('proj_a')
    await keyward.deactivateKey(inactive.record.id)
    const unknown = generateKey()
    for (const key of [valid, inactive.key, unknown])
      await refusal(keyward.authenticate({ projectKey: key }, project))
    expect(control.lookups).toBe(3)

    for (let i = 0; i < 3; i++) {
      expect((await keyward.authenticate({ projectKey: valid }, project)).projectId).toBe('proj_a')
      expect(await refusal(keyward.authenticate({ projectKey: inactive.key }, project))).toBe(
        ErrorType.keyInvalid,
      )
      expect(await refusal(keyward.authenticate({ projectKey: unknown }, project))).toBe(ErrorType.keyInvalid)
    }
    expect(control.lookups).toBe(3)
    expect(keyward.cacheStats()).toEqual({ hits: 9, misses: 3, bypassed: 0, entries: 3, connected: true })
  })

  it('re-checks a cached record every time: scope and project are not cached answers', async () => {
    const { keyward } = setup()
    const { key } = await keyward.issueProjectKey('proj_a')
    await keyward.authenticate({ projectKey: key }, project)
    expect(
      await refusal(keyward.authenticate({ projectKey: key }, { scope: 'project', projectId: 'proj_b' })),
    ).toBe(ErrorType.projectMismatch)
    expect(await refusal(keyward.authenticate({ developerKey: key }, { scope: 'developer' }))).toBe(
      ErrorType.keyWrongType,
    )
  })

  it('forgets a key written through the service before the call returns, even with no feed relaying it', async () => {
    const { keyward, control } = setup()
    control.relay = false
    const { key, record } = await keyward.issueDeveloperKey('dev_a')
    await keyward.authenticate({ developerKey: key }, { scope: 'developer' })
    await keyward.deactivateKey(record.id)
    expect(await refusal(keyward.authenticate({ developerKey: key }, { scope: 'developer' }))).toBe(
      ErrorType.keyInvalid,
    )
    await keyward.activateKey(record.id)
    await expect(keyward.authenticate({ developerKey: key }, { scope: 'developer' })).resolves.toMatchObject({
      developerId: 'dev_a',
    })
  })

  it('forgets keys rolled and revoked as leaked through the service, even with no feed relaying them', async () => {
    const { keyward, control } = setup()
    control.relay = false
    const old = await keyward.issueProjectKey('proj_a')
    await keyward.authenticate({ projectKey: old.key }, project)
    const rolled = await keyward.rollKey(old.record.id, { graceSeconds: 0 })
    expect(await refusal(keyward.authenticate({ projectKey: old.key }, project))).toBe(ErrorType.keyInvalid)
    await keyward.authenticate({ projectKey: rolled!.key }, project)
    await keyward.revokeLeakedKeys([{ hash: await hashKey(rolled!.key) }])
    expect(await refusal(keyward.authenticate({ projectKey: rolled!.key }, project))).toBe(
      ErrorType.keyInvalid,
    )
  })

  it('checks expiry on a cached record with the service clock', async () => {
    let time = Date.parse('2030-01-01T00:00:00Z')
    const { keyward, control, events } = setup({ now: () => new Date(time) })
    const { key } = await keyward.issueProjectKey('proj_a', { expiresInDays: 1 })
    await keyward.authenticate({ projectKey: key }, project)
    await keyward.authenticate({ projectKey: key }, project)
    expect(control.lookups).toBe(1)
    time += 86_400_000
    expect(await refusal(keyward.authenticate({ projectKey: key }, project))).toBe(ErrorType.keyInvalid)
    expect(control.lookups).toBe(1)
    expect(events.filter((event) => event.type === 'auth.failed').map((event) => event.reason)).toEqual([
      'expired_key',
    ])
  })

  it('hears rolls and leaked-key revocations by another service through the memory store feed, and no last use', async () => {
    const store = new MemoryKeyStore()
    const reader = createKeyward({ store, cache: {}, trackLastUsed: false })
    const writer = createKeyward({ store, trackLastUsed: false })
    const rolledKey = await writer.issueProjectKey('proj_a')
    const leakedKey = await writer.issueProjectKey('proj_a')
    for (const { key } of [rolledKey, leakedKey]) await reader.authenticate({ projectKey: key }, project)
    const heard: string[] = []
    store.changes.subscribe((event) => {
      if (event.type === 'changed') heard.push(event.hash)
    })
    await store.recordKeyUse([{ id: leakedKey.record.id, usedAt: new Date() }])
    expect(heard).toEqual([])
    const rolled = await writer.rollKey(rolledKey.record.id, { graceSeconds: 0 })
    expect(heard).toEqual([rolledKey.record.hash, rolled!.record.hash])
    await writer.revokeLeakedKeys([{ hash: leakedKey.record.hash }])
    expect(heard).toEqual([rolledKey.record.hash, rolled!.record.hash, leakedKey.record.hash])
    for (const { key } of [rolledKey, leakedKey]) {
      expect(await refusal(reader.authenticate({ projectKey: key }, project))).toBe(ErrorType.keyInvalid)
    }
  })

  it('hears writes by another service over the same store through the feed', async () => {
    const store = new MemoryKeyStore()
    const reader = createKeyward({ store, cache: {} })
    const writer = createKeyward({ store })
    const { key, record } = await writer.issueProjectKey('proj_a')
    await reader.authenticate({ projectKey: key }, project)
    await writer.deactivateKey(record.id)
    expect(await refusal(reader.authenticate({ projectKey: key }, project))).toBe(ErrorType.keyInvalid)
    // "Not found" is forgotten too when the key is then issued.
    const unknown = generateKey()
    await refusal(reader.authenticate({ projectKey: unknown }, project))
    expect(reader.cacheStats()?.entries).toBe(2)
  })

  it('is empty and bypassed while the feed is not connected, and starts empty on reconnection', async () => {
    const { keyward, store, control, inner, events } = setup()
    const { key, record } = await keyward.issueProjectKey('proj_a')
    await keyward.authenticate({ projectKey: key }, project)
    expect(keyward.cacheStats()?.entries).toBe(1)

    const error = new Error('connection terminated')
    store.changes.publish({ type: 'disconnected', error })
    expect(events.at(-1)).toEqual({ type: 'cache.bypassed', reason: 'feed_disconnected', error })
    expect(keyward.cacheStats()).toMatchObject({ entries: 0, connected: false })
    const before = control.lookups
    await keyward.authenticate({ projectKey: key }, project)
    await keyward.authenticate({ projectKey: key }, project)
    expect(control.lookups).toBe(before + 2)
    expect(keyward.cacheStats()).toMatchObject({ entries: 0, bypassed: 2 })

    // Revoked during the outage, by another writer: the feed never tells.
    await inner.setKeyActive(record.id, false)
    store.changes.publish({ type: 'connected' })
    expect(events.at(-1)).toEqual({ type: 'cache.resumed' })
    expect(await refusal(keyward.authenticate({ projectKey: key }, project))).toBe(ErrorType.keyInvalid)
    expect(await refusal(keyward.authenticate({ projectKey: key }, project))).toBe(ErrorType.keyInvalid)
    expect(control.lookups).toBe(before + 3)
  })

  it('does not keep what a lookup read while the key changed', async () => {
    const { keyward, store, inner } = setup()
    const { key, record } = await keyward.issueProjectKey('proj_a')
    // The lookup reads the active record; the revocation commits and is heard before it returns.
    let release!: () => void
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    const read = inner.findKeyByHash(record.hash)
    vi.spyOn(store, 'findKeyByHash').mockImplementationOnce(() => gate.then(() => read))
    const pending = keyward.authenticate({ projectKey: key }, project)
    await inner.setKeyActive(record.id, false)
    release()
    await pending // answered from what it read, as any request in flight would be
    expect(await refusal(keyward.authenticate({ projectKey: key }, project))).toBe(ErrorType.keyInvalid)
  })

  it('trusts an entry no longer than ttlMs when a change is never heard', async () => {
    const { keyward, control, inner } = setup({ cache: { ttlMs: 40 } })
    control.relay = false
    const { key, record } = await keyward.issueProjectKey('proj_a')
    await keyward.authenticate({ projectKey: key }, project)
    await inner.setKeyActive(record.id, false)
    await expect(keyward.authenticate({ projectKey: key }, project)).resolves.toBeTruthy()
    await new Promise((resolve) => setTimeout(resolve, 80))
    expect(await refusal(keyward.authenticate({ projectKey: key }, project))).toBe(ErrorType.keyInvalid)
  })

  it('reads the clock for its TTL about once per hundredth of the TTL, not with a timer every millisecond', async () => {
    const { keyward } = setup({ cache: { ttlMs: 60_000 }, lastUsedIntervalSeconds: 3600 })
    const { key } = await keyward.issueProjectKey('proj_a')
    await keyward.authenticate({ projectKey: key }, project)
    const timers = vi.spyOn(globalThis, 'setTimeout')
    try {
      // At least 100 cached verifications over at least 50 ms, letting the event loop turn between
      // them, as a server does between requests: a timer every millisecond would be 50 or more. A
      // loaded machine may stretch the run; the clock is read once per 600 ms (a hundredth of the TTL).
      const started = performance.now()
      let verified = 0
      while (verified < 100 || performance.now() - started < 50) {
        expect(keyward.authenticateNow({ projectKey: key }, project)).toMatchObject({ projectId: 'proj_a' })
        verified++
        await new Promise((resolve) => setImmediate(resolve))
      }
      const elapsed = performance.now() - started
      expect(timers.mock.calls.length).toBeLessThanOrEqual(2 + Math.floor(elapsed / 600))
    } finally {
      timers.mockRestore()
    }
  })

  it('never holds a full key: entries are records by hash, and "not found"', async () => {
    const set = vi.spyOn(LRUCache.prototype, 'set')
    const { keyward } = setup()
    const keys = [
      (await keyward.issueProjectKey('proj_a')).key,
      (await keyward.issueDeveloperKey('dev_a')).key,
    ]
    keys.push(generateKey())
    await refusal(keyward.authenticate({ projectKey: keys[0] }, project))
    await refusal(keyward.authenticate({ developerKey: keys[1] }, { scope: 'developer' }))
    await refusal(keyward.authenticate({ projectKey: keys[2] }, project))
    expect(set).toHaveBeenCalledTimes(3)
    const stored = JSON.stringify(set.mock.calls)
    for (const key of keys) {
      expect(stored).not.toContain(key)
      expect(stored).not.toContain(key.slice(8))
    }
    for (const [hash] of set.mock.calls) expect(hash).toMatch(/^[0-9a-f]{64}$/)
  })

  // Node's collector through V8's flag, Bun's own; undefined where neither is offered.
  function collector(): (() => void) | undefined {
    const bun = (globalThis as { Bun?: { gc(force: boolean): void } }).Bun
    if (bun) return () => bun.gc(true)
    try {
      setFlagsFromString('--expose-gc')
      return runInNewContext('gc') as () => void
    } catch {
      return undefined
    }
  }

  it('holds at most maxEntries under a flood of one million distinct unknown keys', async () => {
    const keyward = createKeyward({ store: new MemoryKeyStore(), cache: { maxEntries: 10_000 } })
    const gc = collector()
    gc?.()
    const heapBefore = process.memoryUsage().heapUsed
    const base = generateKey().slice(0, 27)
    for (let i = 0; i < 1_000_000; i++) {
      const key = base + i.toString(36).padStart(8, '0')
      await keyward.authenticate({ projectKey: key }, project).catch(() => {})
    }
    expect(keyward.cacheStats()).toMatchObject({ misses: 1_000_000, entries: 10_000 })
    // The heap is measured where the runtime lets a test collect garbage (Node, Bun).
    if (!gc)
      return console.info('cache flood: heap not measured, this runtime offers no garbage collection call')
    gc()
    const grown = process.memoryUsage().heapUsed - heapBefore
    // 10,000 entries of a 64-character hash: a few MB; a cache without a bound would hold ~200 MB.
    expect(grown).toBeLessThan(20 * 1024 * 1024)
    console.info(
      `cache flood: heap grew by ${(grown / 1024 / 1024).toFixed(1)} MB for 1,000,000 unknown keys`,
    )
  }, 120_000)

  it('is checked when the service is built', () => {
    const store = new MemoryKeyStore()
    const bare: KeyStore = {
      insertKey: (r, l) => store.insertKey(r, l),
      findKeyByHash: (h) => store.findKeyByHash(h),
      findKeyById: (id) => store.findKeyById(id),
      listKeysByOwner: (o) => store.listKeysByOwner(o),
      setKeyActive: (id, a, l, now) => store.setKeyActive(id, a, l, now),
      rollKey: (id, r, e, now) => store.rollKey(id, r, e, now),
      recordKeyUse: (uses) => store.recordKeyUse(uses),
      findKeysByHashes: (hashes) => store.findKeysByHashes(hashes),
      deactivateKeys: (ids) => store.deactivateKeys(ids),
    }
    expect(() => createKeyward({ store: bare, cache: {} })).toThrow(
      'createKeyward: option `cache` needs a store with a change feed (`store.changes`)',
    )
    expect(createKeyward({ store: bare, cache: false }).cacheStats()).toBeNull()
    expect(() => createKeyward({ store, cache: { maxEntries: 0 } })).toThrow(
      'createKeyward: option `cache.maxEntries` must be a positive integer, got 0.',
    )
    expect(() => createKeyward({ store, cache: 'yes' as never })).toThrow('option `cache` must be an object')
  })
})

describe('single flight: concurrent lookups of one key', () => {
  // Holds the store's next lookup until `release`, answering it with the record as it is now.
  function holdNextLookup(store: KeyStore, inner: MemoryKeyStore, hash: string) {
    let release!: () => void
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    const read = inner.findKeyByHash(hash)
    const spy = vi.spyOn(store, 'findKeyByHash')
    spy.mockImplementationOnce(() => gate.then(() => read))
    return { release, lookups: () => spy.mock.calls.length }
  }
  // Long enough for a lookup that was opened to be sent to the store.
  const sent = () => new Promise((resolve) => setImmediate(resolve))

  it('makes one store lookup for many concurrent requests of one key, the cache bypassed or absent', async () => {
    for (const cache of [{}, undefined]) {
      const { store, control } = countingStore()
      const keyward = createKeyward({ store, ...(cache ? { cache } : {}) })
      const { key } = await keyward.issueProjectKey('proj_a')
      store.changes.publish({ type: 'disconnected' }) // a late feed: the cache is bypassed
      const before = control.lookups
      const answers = await Promise.all(
        Array.from({ length: 300 }, (_, i) =>
          refusal(
            keyward
              .authenticate(
                { projectKey: key },
                i % 3 === 2 ? { scope: 'project', projectId: 'proj_b' } : project,
              )
              .then((auth) => auth.projectId),
          ),
        ),
      )
      expect(control.lookups - before).toBe(1)
      // Every request is checked on its own: the other project's requirement is refused.
      expect(answers.filter((answer) => answer === 'accepted')).toHaveLength(200)
      expect(answers.filter((answer) => answer === ErrorType.projectMismatch)).toHaveLength(100)
      if (cache) expect(keyward.cacheStats()).toMatchObject({ bypassed: 300, entries: 0, connected: false })
    }
  })

  it('gathers the requests that arrive while a lookup is out into the next lookup', async () => {
    const { keyward, store, inner } = setup()
    const { key, record } = await keyward.issueProjectKey('proj_a')
    store.changes.publish({ type: 'disconnected' })
    const held = holdNextLookup(store, inner, record.hash)
    const first = keyward.authenticate({ projectKey: key }, project)
    await sent()
    expect(held.lookups()).toBe(1)
    const later = Array.from({ length: 100 }, () => keyward.authenticate({ projectKey: key }, project))
    await sent()
    expect(held.lookups()).toBe(1) // the next lookup waits for the one that is out
    held.release()
    for (const auth of await Promise.all([first, ...later])) expect(auth.projectId).toBe('proj_a')
    expect(held.lookups()).toBe(2)
  })

  it('never answers a request from a lookup sent before a revocation it follows: written here, heard, or unheard while bypassed', async () => {
    const revocations = {
      'through this service': async (keyward: ReturnType<typeof setup>['keyward'], id: string) => {
        await keyward.deactivateKey(id)
      },
      'by another process, heard through the feed': async (
        _: ReturnType<typeof setup>['keyward'],
        id: string,
        inner: MemoryKeyStore,
      ) => {
        await inner.setKeyActive(id, false)
      },
    }
    for (const [how, revoke] of Object.entries(revocations)) {
      for (const bypassed of [false, true]) {
        const { keyward, store, inner, control } = setup()
        const { key, record } = await keyward.issueProjectKey('proj_a')
        if (bypassed) {
          control.relay = false // the other process's revocation is never heard
          store.changes.publish({ type: 'disconnected' })
        }
        const held = holdNextLookup(store, inner, record.hash) // reads the key while it is active
        const first = keyward.authenticate({ projectKey: key }, project)
        await sent()
        await revoke(keyward, record.id, inner)
        const later = refusal(keyward.authenticate({ projectKey: key }, project))
        held.release()
        // The request in flight is answered from what it read; the one after the revocation is refused.
        expect((await first).projectId, how).toBe('proj_a')
        expect(await later, `${how}${bypassed ? ', bypassed' : ''}`).toBe(ErrorType.keyInvalid)
        expect(await refusal(keyward.authenticate({ projectKey: key }, project))).toBe(ErrorType.keyInvalid)
      }
    }
  })

  it('lets a request of the same tick join a lookup, unless a change of that key was heard in between', async () => {
    const { keyward, store, inner, control } = setup()
    const { key, record } = await keyward.issueProjectKey('proj_a')
    const held = holdNextLookup(store, inner, record.hash) // answers with the key active
    control.relay = false
    await inner.setKeyActive(record.id, false) // the revocation, heard below in the same tick
    const first = keyward.authenticate({ projectKey: key }, project)
    const joined = keyward.authenticate({ projectKey: key }, project)
    expect(held.lookups()).toBe(1)
    store.changes.publish({ type: 'changed', hash: record.hash })
    const after = refusal(keyward.authenticate({ projectKey: key }, project))
    held.release()
    expect((await first).projectId).toBe('proj_a')
    expect((await joined).projectId).toBe('proj_a')
    expect(await after).toBe(ErrorType.keyInvalid) // from a lookup of its own, sent after the first returned
    expect(held.lookups()).toBe(2)
  })

  it('answers every request of a failed lookup 503 store_unavailable, and reports the failure once', async () => {
    const { keyward, store, events } = setup()
    const { key } = await keyward.issueProjectKey('proj_a')
    store.changes.publish({ type: 'disconnected' })
    vi.spyOn(store, 'findKeyByHash').mockRejectedValueOnce(new Error('connection terminated'))
    const errors = await Promise.all(
      Array.from({ length: 50 }, () =>
        keyward.authenticate({ projectKey: key }, project).then(
          () => undefined,
          (error: KeywardError) => error,
        ),
      ),
    )
    for (const error of errors) {
      expect(error).toBeInstanceOf(KeywardError)
      expect(error?.status).toBe(503)
      expect(errorBody(error as KeywardError)).toEqual({
        detail: [
          { loc: [], msg: 'The key store is unavailable. Try again later.', type: 'store_unavailable' },
        ],
      })
    }
    expect(events.filter((event) => event.type === 'store.error')).toHaveLength(1)
    expect(events.filter((event) => event.type === 'auth.failed')).toHaveLength(50)
    // The next request asks the store again.
    expect((await keyward.authenticate({ projectKey: key }, project)).projectId).toBe('proj_a')
  })
})

describe('project owners in the verification cache', () => {
  function ownersSetup() {
    const owners = new Map([['proj_a', 'dev_1']])
    let lookups = 0
    let gate: Promise<void> | undefined
    const projectOwner = async (projectId: string) => {
      lookups++
      const owner = owners.get(projectId) ?? null
      await gate
      return owner
    }
    const context = setup({ projectOwner })
    return {
      ...context,
      owners,
      lookups: () => lookups,
      hold: (until: Promise<void>) => {
        gate = until
      },
    }
  }

  it('looks an owner up once, then answers from memory', async () => {
    const { keyward, lookups } = ownersSetup()
    for (let i = 0; i < 5; i++) expect(await keyward.projectOwner('proj_a')).toBe('dev_1')
    expect(lookups()).toBe(1)
  })

  it('never keeps "no such project": one created later by another process is found', async () => {
    const { keyward, owners, lookups } = ownersSetup()
    expect(await keyward.projectOwner('proj_new')).toBeNull()
    owners.set('proj_new', 'dev_2')
    expect(await keyward.projectOwner('proj_new')).toBe('dev_2')
    expect(lookups()).toBe(2)
  })

  it('drops every owner on any key change: a write here, a change heard from another process, a lost feed', async () => {
    const { keyward, store, inner, control, owners, lookups } = ownersSetup()
    await keyward.projectOwner('proj_a')
    // Deleting a project deactivates its keys: here, through this service.
    const issued = await keyward.issueProjectKey('proj_a')
    owners.delete('proj_a')
    expect(await keyward.projectOwner('proj_a')).toBeNull()
    expect(lookups()).toBe(2)

    // In another process: heard through the feed.
    owners.set('proj_a', 'dev_1')
    await keyward.projectOwner('proj_a')
    await keyward.projectOwner('proj_a')
    expect(lookups()).toBe(3)
    await inner.setKeyActive(issued.record.id, false)
    owners.delete('proj_a')
    expect(await keyward.projectOwner('proj_a')).toBeNull()
    expect(lookups()).toBe(4)

    // The feed drops: nothing is trusted, and nothing is kept until it is back.
    owners.set('proj_a', 'dev_1')
    await keyward.projectOwner('proj_a')
    store.changes.publish({ type: 'disconnected' })
    control.relay = false
    await keyward.projectOwner('proj_a')
    await keyward.projectOwner('proj_a')
    expect(lookups()).toBe(7)
  })

  it('does not keep an owner read while a key changed', async () => {
    const { keyward, owners, lookups, hold } = ownersSetup()
    let release!: () => void
    hold(
      new Promise<void>((resolve) => {
        release = resolve
      }),
    )
    const reading = keyward.projectOwner('proj_a')
    await Promise.resolve()
    await keyward.issueProjectKey('proj_b') // any write, while the lookup is under way
    release()
    expect(await reading).toBe('dev_1')
    hold(Promise.resolve())
    owners.delete('proj_a')
    expect(await keyward.projectOwner('proj_a')).toBeNull()
    expect(lookups()).toBe(2)
  })
})

describe('a closed owner in the verification cache', () => {
  it('drops cached project owners here and in another service over the store, even without an active key', async () => {
    const store = new MemoryKeyStore()
    const owners = new Map([['proj_a', 'dev_1']])
    const projectOwner = (projectId: string) => owners.get(projectId) ?? null
    const here = createKeyward({ store, cache: {}, projectOwner })
    const there = createKeyward({ store, cache: {}, projectOwner })
    const { record } = await here.issueProjectKey('proj_a')
    await here.deactivateKey(record.id) // no active key is left to deactivate
    expect(await here.projectOwner('proj_a')).toBe('dev_1')
    expect(await there.projectOwner('proj_a')).toBe('dev_1')

    owners.delete('proj_a') // the host deletes the project with its keys
    expect(await here.deactivateOwnerKeys({ type: 'project', id: 'proj_a' })).toEqual([])
    expect(await here.projectOwner('proj_a')).toBeNull()
    expect(await there.projectOwner('proj_a')).toBeNull()
  })
})
