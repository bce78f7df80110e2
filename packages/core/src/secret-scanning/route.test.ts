import { type SecretScanningSender, startSecretScanningSender } from '@keyward/testkit'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { hashKey } from '../hash/digest.js'
import type { KeywardRequest } from '../http/types.js'
import type { KeywardEvent } from '../service/events.js'
import { createKeyward } from '../service/keyward.js'
import { MemoryKeyStore } from '../store/memory.js'
import { createSecretScanningRoute } from './route.js'

let sender: SecretScanningSender
beforeEach(async () => {
  sender = await startSecretScanningSender()
})
afterEach(() => sender.close())

function world(
  options: Parameters<typeof createSecretScanningRoute>[1] = {},
  legacy: 'reject' | 'accept' = 'reject',
) {
  const events: KeywardEvent[] = []
  const store = new MemoryKeyStore()
  const keyward = createKeyward({ store, legacyDeveloperKeys: legacy, onEvent: (e) => events.push(e) })
  const route = createSecretScanningRoute(keyward, { keysUrl: sender.keysUrl, ...options })
  return { events, store, keyward, route }
}

const encoder = new TextEncoder()

function post(body: string, headers: Array<[string, string]>): KeywardRequest {
  const map = new Map(headers.map(([k, v]) => [k.toLowerCase(), v]))
  return {
    method: 'POST',
    url: '/api/v1/secret-scanning/github',
    params: {},
    header: (name) => map.get(name),
    body: () => ({
      raw: (async function* () {
        yield encoder.encode(body)
      })(),
    }),
  }
}

const alert = (...tokens: string[]) =>
  JSON.stringify(
    tokens.map((token, i) => ({
      token,
      type: 'keyward_api_key',
      url: `https://example.com/leak/${i}`,
      source: 'content',
    })),
  )

const signed = (body: string) => post(body, sender.headers(body))

describe('the secret-scanning alert endpoint', () => {
  it('revokes a leaked key, tells the owner through key.leaked, and answers the feedback', async () => {
    const { route, keyward, events } = world()
    const { key, record } = await keyward.issueProjectKey('proj-1')
    const other = await keyward.issueDeveloperKey('dev-1')
    const stranger = `ak_${'Z'.repeat(32)}`
    events.length = 0
    const body = alert(key, stranger, 'not-a-key-at-all')
    const response = await route.handle(signed(body))
    expect(response.status).toBe(200)
    expect(response.headers['cache-control']).toBe('no-store')
    expect(JSON.parse(response.body)).toEqual([
      { token_hash: record.hash, token_type: 'keyward_api_key', label: 'true_positive' },
      { token_hash: await hashKey(stranger), token_type: 'keyward_api_key', label: 'false_positive' },
      {
        token_hash: await hashKey('not-a-key-at-all'),
        token_type: 'keyward_api_key',
        label: 'false_positive',
      },
    ])
    expect(response.body).not.toContain(key)
    await expect(
      keyward.authenticate({ projectKey: key }, { scope: 'project', projectId: 'proj-1' }),
    ).rejects.toMatchObject({
      type: 'key_invalid',
    })
    await keyward.authenticate({ developerKey: other.key }, { scope: 'developer' })
    const leakedEvents = events.filter((e) => e.type !== 'auth.failed')
    expect(leakedEvents).toEqual([
      {
        type: 'key.deactivated',
        keyId: record.id,
        keyPrefix: record.keyPrefix,
        ownerType: 'project',
        ownerId: 'proj-1',
      },
      {
        type: 'key.leaked',
        keyId: record.id,
        keyPrefix: record.keyPrefix,
        ownerType: 'project',
        ownerId: 'proj-1',
        url: 'https://example.com/leak/0',
        source: 'content',
        revoked: true,
      },
    ])
    expect(JSON.stringify(events)).not.toContain(key)
  })

  it('answers the same alert twice the same way and changes nothing the second time', async () => {
    const { route, keyward, events } = world()
    const { key } = await keyward.issueDeveloperKey('dev-1')
    const body = alert(key)
    const first = await route.handle(signed(body))
    events.length = 0
    const second = await route.handle(signed(body))
    expect(second.status).toBe(200)
    expect(second.body).toBe(first.body)
    expect(events.map((e) => e.type)).toEqual(['key.leaked'])
    expect(events[0]).toMatchObject({ revoked: false })
  })

  it('names the token itself with feedback: token_raw', async () => {
    const { route, keyward } = world({ feedback: 'token_raw' })
    const { key } = await keyward.issueProjectKey('proj-1')
    const response = await route.handle(signed(alert(key, 'xyz')))
    expect(JSON.parse(response.body)).toEqual([
      { token_raw: key, token_type: 'keyward_api_key', label: 'true_positive' },
      { token_raw: 'xyz', token_type: 'keyward_api_key', label: 'false_positive' },
    ])
  })

  it('revokes a leaked legacy dk_ key under either policy', async () => {
    for (const policy of ['reject', 'accept'] as const) {
      const { route, store, keyward } = world({}, policy)
      const legacy = `dk_${'q'.repeat(20)}`
      const record = await store.insertKey({
        id: crypto.randomUUID(),
        hash: await hashKey(legacy),
        keyPrefix: legacy.slice(0, 8),
        ownerType: 'developer',
        ownerId: 'dev-1',
        name: null,
        active: true,
        createdAt: new Date(),
      })
      const response = await route.handle(signed(alert(legacy)))
      expect(JSON.parse(response.body)[0].label).toBe('true_positive')
      expect((await keyward.findKey(record.id))?.active).toBe(false)
    }
  })

  it('refuses a bad signature with 401 signature_invalid and touches nothing', async () => {
    const { route, keyward, events } = world()
    const { key, record } = await keyward.issueProjectKey('proj-1')
    events.length = 0
    const body = alert(key)
    const forged = [
      ['github-public-key-identifier', sender.identifier],
      ['github-public-key-signature', sender.sign(alert(`ak_${'A'.repeat(32)}`))],
    ] as Array<[string, string]>
    for (const headers of [
      forged,
      [forged[0]!, ['github-public-key-signature', 'bm90IGEgc2lnbmF0dXJl']],
    ] as const) {
      const response = await route.handle(post(body, headers as Array<[string, string]>))
      expect(response.status).toBe(401)
      expect(JSON.parse(response.body)).toEqual({
        detail: [
          {
            loc: ['header', 'github-public-key-signature'],
            msg: "The signature does not verify with the sender's public key of this identifier.",
            type: 'signature_invalid',
          },
        ],
      })
    }
    expect((await keyward.findKey(record.id))?.active).toBe(true)
    expect(events).toEqual([])
  })

  it('refuses an alert without either header with 401 signature_missing, before reading the body', async () => {
    const { route } = world()
    const body = alert('x')
    const [identifier, signature] = sender.headers(body)
    const blank: [string, string] = ['github-public-key-signature', '  ']
    const cases: Array<[Array<[string, string]>, string]> = [
      [[identifier!], 'github-public-key-signature'],
      [[signature!], 'github-public-key-identifier'],
      [[identifier!, blank], 'github-public-key-signature'],
    ]
    for (const [headers, missing] of cases) {
      const response = await route.handle(post(body, headers))
      expect(response.status).toBe(401)
      expect(JSON.parse(response.body).detail[0]).toMatchObject({
        type: 'signature_missing',
        loc: ['header', missing],
      })
    }
    expect(sender.fetches).toBe(0)
  })

  it('answers 400 alert_invalid for a body that is not an alert, 413 past the limit', async () => {
    const { route } = world({ bodyLimit: 1000 })
    const cases: Array<[string, number, string[]]> = [
      ['[{"token":', 400, ['body']],
      ['{"token":"x"}', 400, ['body']],
      ['["x"]', 400, ['body', '0']],
      ['[{"type":"t"}]', 400, ['body', '0', 'token']],
      ['[{"token":"x","type":"t","url":7}]', 400, ['body', '0', 'url']],
      ['', 400, ['body']],
      [alert(...Array(40).fill(`ak_${'a'.repeat(32)}`)), 413, ['body']],
    ]
    for (const [body, status, loc] of cases) {
      const response = await route.handle(signed(body))
      expect(response.status, body.slice(0, 30)).toBe(status)
      expect(JSON.parse(response.body).detail[0].loc).toEqual(loc)
    }
  })

  it('verifies with a key that is no longer current, and fetches again for a new identifier at most once a minute', async () => {
    let now = 1_000_000
    const { route, keyward } = world({ now: () => now })
    const keys = await Promise.all([1, 2, 3].map(() => keyward.issueProjectKey('proj-1')))
    expect((await route.handle(signed(alert(keys[0]!.key)))).status).toBe(200)
    expect(sender.fetches).toBe(1)
    const old = sender.identifier
    sender.rotate()
    // The new key is not known yet, and the last fetch is fresh: no fetch, 401.
    now += 10_000
    expect((await route.handle(signed(alert(keys[1]!.key)))).status).toBe(401)
    expect(sender.fetches).toBe(1)
    // A minute after the last fetch, the unknown identifier fetches the document again.
    now += 50_000
    expect((await route.handle(signed(alert(keys[1]!.key)))).status).toBe(200)
    expect(sender.fetches).toBe(2)
    // The old key, no longer current, still verifies, from the cache.
    const body = alert(keys[2]!.key)
    const byOld = post(body, [
      ['github-public-key-identifier', old],
      ['github-public-key-signature', sender.sign(body, old)],
    ])
    expect((await route.handle(byOld)).status).toBe(200)
    expect(sender.fetches).toBe(2)
  })

  it('answers 503 signing_keys_unavailable while the keys cannot be fetched, and recovers', async () => {
    let now = 1_000_000
    const { route, keyward } = world({ now: () => now })
    const { key } = await keyward.issueProjectKey('proj-1')
    sender.setStatus(500)
    const response = await route.handle(signed(alert(key)))
    expect(response.status).toBe(503)
    expect(JSON.parse(response.body).detail[0].type).toBe('signing_keys_unavailable')
    sender.setStatus(200)
    now += 60_000
    expect((await route.handle(signed(alert(key)))).status).toBe(200)
  })

  it('looks 1,000 tokens up in one store call and deactivates them in one more', async () => {
    const { route, keyward, store } = world({ bodyLimit: 1024 * 1024 })
    const issued = await Promise.all(Array.from({ length: 500 }, () => keyward.issueProjectKey('proj-1')))
    const calls: string[] = []
    for (const method of [
      'findKeyByHash',
      'findKeysByHashes',
      'deactivateKeys',
      'setKeyActive',
      'findKeyById',
    ] as const) {
      const original = store[method].bind(store) as (...args: unknown[]) => Promise<unknown>
      ;(store as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
        calls.push(method)
        return original(...args)
      }
    }
    const strangers = Array.from({ length: 500 }, (_, i) => `ak_${i.toString().padStart(32, 'x')}`)
    const response = await route.handle(signed(alert(...issued.map((k) => k.key), ...strangers)))
    const feedback = JSON.parse(response.body) as Array<{ label: string }>
    expect(feedback).toHaveLength(1000)
    expect(feedback.filter((f) => f.label === 'true_positive')).toHaveLength(500)
    expect(calls).toEqual(['findKeysByHashes', 'deactivateKeys'])
    expect((await keyward.listKeys({ type: 'project', id: 'proj-1' })).every((r) => !r.active)).toBe(true)
  })

  it('refuses a query parameter once the alert is signed, and revokes nothing; unsigned, the signature is missing', async () => {
    const { route, keyward } = world()
    const { key } = await keyward.issueProjectKey('proj-1')
    const body = alert(key)
    const queried = { ...signed(body), url: '/api/v1/secret-scanning/github?dry_run=1' }
    const answer = await route.handle(queried)
    expect([answer.status, JSON.parse(answer.body).detail]).toEqual([
      422,
      [
        {
          loc: ['query', 'dry_run'],
          msg: 'Unknown query parameter `dry_run`: this takes no query parameters.',
          type: 'extra_forbidden',
        },
      ],
    ])
    await keyward.authenticate({ projectKey: key }, { scope: 'project', projectId: 'proj-1' })
    const unsigned = await route.handle({ ...post(body, []), url: queried.url })
    expect([unsigned.status, JSON.parse(unsigned.body).detail[0].type]).toEqual([401, 'signature_missing'])
  })
})
