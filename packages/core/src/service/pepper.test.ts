import * as nodeCrypto from 'node:crypto'
import { createHash, createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { hmacSha256Hex, type NodeCrypto, sha256HexWeb } from '../hash/digest.js'
import { keyHashing } from '../hash/pepper.js'
import { generateKey } from '../key/generate.js'
import { MemoryKeyStore } from '../store/memory.js'
import type { KeyChangeEvent } from '../store/types.js'
import type { KeywardEvent } from './events.js'
import { createKeyward } from './keyward.js'

const project = { scope: 'project', projectId: 'proj_p' } as const
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')
const hmac = (secret: string, text: string) => createHmac('sha256', secret).update(text).digest('hex')
const P1 = { id: 'p1', secret: 'first pepper, thirty-two bytes at least' }
const P2 = { id: 'p2', secret: 'second pepper, thirty-two bytes at least' }
const P3 = { id: 'p3', secret: 'third pepper, thirty-two bytes at least!' }

const outcome = (promise: Promise<unknown>) =>
  promise.then(
    () => 'accepted',
    (error: { type: string }) => error.type,
  )

describe('hashing without a pepper', () => {
  it('stores the plain SHA-256 of the key, naming no pepper, as the specification says', async () => {
    const keyward = createKeyward({ store: new MemoryKeyStore() })
    const { key, record } = await keyward.issueProjectKey('proj_p')
    expect(record.hash).toBe(sha256(key))
    expect('pepperId' in record).toBe(false)
    expect(await outcome(keyward.authenticate({ projectKey: key }, project))).toBe('accepted')
  })
})

describe('hashing with peppers', () => {
  it('rotates over three peppers: new keys under the newest, every older key keeps verifying', async () => {
    const store = new MemoryKeyStore()
    const events: KeywardEvent[] = []
    const feed: KeyChangeEvent[] = []
    store.changes.subscribe((event) => feed.push(event))
    const service = (pepper?: (typeof P1)[]) =>
      createKeyward({
        store,
        cache: {},
        onEvent: (event) => events.push(event),
        ...(pepper ? { hashing: { pepper } } : {}),
      })

    const plain = await service().issueProjectKey('proj_p')
    const first = await service([P1]).issueProjectKey('proj_p')
    const second = await service([P1, P2]).issueProjectKey('proj_p')
    const keyward = service([P1, P2, P3])
    const third = await keyward.issueProjectKey('proj_p')

    expect(plain.record.hash).toBe(sha256(plain.key))
    expect(first.record).toMatchObject({ hash: hmac(P1.secret, sha256(first.key)), pepperId: 'p1' })
    expect(second.record).toMatchObject({ hash: hmac(P2.secret, sha256(second.key)), pepperId: 'p2' })
    expect(third.record).toMatchObject({ hash: hmac(P3.secret, sha256(third.key)), pepperId: 'p3' })
    // What the store keeps is what was issued.
    expect((await store.findKeyById(third.record.id))?.pepperId).toBe('p3')

    for (const { key } of [plain, first, second, third]) {
      expect(await outcome(keyward.authenticate({ projectKey: key }, project))).toBe('accepted')
      // Again, from the cache, and through the synchronous path.
      expect(await outcome(keyward.authenticate({ projectKey: key }, project))).toBe('accepted')
      expect(keyward.keyNow('project', key, 'proj_p')).toMatchObject({ projectId: 'proj_p' })
    }

    // The oldest pepper retired: its keys stop verifying, the others go on.
    const retired = service([P2, P3])
    expect(await outcome(retired.authenticate({ projectKey: first.key }, project))).toBe('key_invalid')
    for (const { key } of [plain, second, third]) {
      expect(await outcome(retired.authenticate({ projectKey: key }, project))).toBe('accepted')
    }
    // A service without peppers finds none of the peppered keys.
    expect(await outcome(service().authenticate({ projectKey: third.key }, project))).toBe('key_invalid')

    // Neither the events, nor the change feed, nor the audit log, nor a record holds a secret.
    const audit = await store.readAuditLog(0, 1000)
    expect(audit.length).toBeGreaterThanOrEqual(4)
    const seen = JSON.stringify([
      events,
      feed,
      audit,
      await store.listKeysByOwner({ type: 'project', id: 'proj_p' }),
    ])
    for (const { secret } of [P1, P2, P3]) expect(seen).not.toContain(secret)
  })

  it('a record counts only under the pepper it names', async () => {
    const store = new MemoryKeyStore()
    const keyward = createKeyward({ store, hashing: { pepper: [P1, P2] } })
    const { record } = await keyward.issueProjectKey('proj_p')
    const key = generateKey()
    // Its hash under p1, said to be made with p2: not a hash of this key under any pepper.
    await store.insertKey({ ...record, id: crypto.randomUUID(), hash: hmac(P1.secret, sha256(key)) })
    expect(await outcome(keyward.authenticate({ projectKey: key }, project))).toBe('key_invalid')
    const labelled = generateKey()
    await store.insertKey({
      ...record,
      id: crypto.randomUUID(),
      hash: hmac(P1.secret, sha256(labelled)),
      pepperId: 'p1',
    })
    expect(await outcome(keyward.authenticate({ projectKey: labelled }, project))).toBe('accepted')
  })

  it('forgets a cached peppered key revoked here or by another process', async () => {
    const store = new MemoryKeyStore()
    const options = { store, cache: {}, hashing: { pepper: [P1, P2] } }
    const here = createKeyward(options)
    const elsewhere = createKeyward(options)
    const one = await here.issueProjectKey('proj_p')
    const two = await here.issueProjectKey('proj_p')
    for (const { key } of [one, two]) {
      expect(await outcome(here.authenticate({ projectKey: key }, project))).toBe('accepted')
    }
    expect(here.cacheStats()?.entries).toBe(2)
    await here.deactivateKey(one.record.id)
    expect(await outcome(here.authenticate({ projectKey: one.key }, project))).toBe('key_invalid')
    await elsewhere.deactivateKey(two.record.id)
    expect(here.keyNow('project', two.key, 'proj_p')).toBeUndefined()
    expect(await outcome(here.authenticate({ projectKey: two.key }, project))).toBe('key_invalid')
  })

  it('rolling a key stores the new one under the newest pepper', async () => {
    const store = new MemoryKeyStore()
    const old = await createKeyward({ store }).issueProjectKey('proj_p')
    const keyward = createKeyward({ store, hashing: { pepper: [P1, P2] } })
    const rolled = await keyward.rollKey(old.record.id)
    expect(rolled?.record).toMatchObject({ hash: hmac(P2.secret, sha256(rolled!.key)), pepperId: 'p2' })
    expect(await outcome(keyward.authenticate({ projectKey: rolled!.key }, project))).toBe('accepted')
  })

  it('revokes a peppered key reported as leaked by its plain SHA-256', async () => {
    const keyward = createKeyward({ store: new MemoryKeyStore(), hashing: { pepper: [P1] } })
    const { key, record } = await keyward.issueProjectKey('proj_p')
    const [result] = await keyward.revokeLeakedKeys([{ hash: sha256(key), url: 'https://example.com/x' }])
    expect(result).toMatchObject({
      hash: sha256(key),
      revoked: true,
      record: { id: record.id, active: false },
    })
    expect(await outcome(keyward.authenticate({ projectKey: key }, project))).toBe('key_invalid')
  })

  it('computes the same HMAC through Web Crypto as through node:crypto', async () => {
    const plain = await sha256HexWeb('ak_example')
    const hashing = keyHashing({ pepper: [P1] })
    const [, fast] = await hashing.candidates(plain)
    expect(fast).toBe(hmac(P1.secret, plain))
    const key = await crypto.subtle.importKey(
      'raw',
      new TextEncoder().encode(P1.secret),
      { name: 'HMAC', hash: 'SHA-256' },
      false,
      ['sign'],
    )
    const web = Buffer.from(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(plain))).toString(
      'hex',
    )
    expect(web).toBe(fast)
  })

  it.each([
    ['text (an ASCII inner pad)', new TextEncoder().encode(P2.secret)],
    ['bytes at or past 0x80', Uint8Array.from({ length: 40 }, (_, i) => 0x80 + i * 3)],
    ['longer than a block (hashed first)', new TextEncoder().encode(P3.secret.repeat(3))],
  ])(
    'computes one HMAC on every path for a secret of %s: crypto.hash, createHmac alone, Web Crypto, and past the in-place length',
    async (_, secret) => {
      const { hash: _hash, ...withoutHash } = nodeCrypto
      const paths = [
        hmacSha256Hex(secret),
        hmacSha256Hex(secret, withoutHash as unknown as NodeCrypto),
        hmacSha256Hex(secret, null),
      ]
      for (const input of ['ak_example', 'é€'.repeat(300), 'x'.repeat(1025), '', sha256('ak_example')]) {
        const expected = createHmac('sha256', secret).update(input).digest('hex')
        for (const path of paths) expect(await path(input)).toBe(expected)
      }
      expect(typeof paths[2]!('x')).not.toBe('string')
    },
  )

  it.each([
    [{ pepper: [] }, 'must be an array of 1 to 8'],
    [{ pepper: [{ id: 'has space', secret: P1.secret }] }, '`hashing.pepper`[0].id must be 1 to 32'],
    [{ pepper: [P1, { ...P2, id: 'p1' }] }, "[1].id 'p1' is given twice"],
    [
      { pepper: [{ id: 'short', secret: 'too short' }] },
      "(pepper 'short') must be a string or bytes of at least 32 bytes, got 9",
    ],
  ])('refuses the option %j, naming it', (hashing, message) => {
    expect(() => createKeyward({ store: new MemoryKeyStore(), hashing: hashing as never })).toThrow(message)
  })
})
