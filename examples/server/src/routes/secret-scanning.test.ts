import { generateKey, hashKey, keyPrefix } from '@keyward/core'
import { type SecretScanningSender, startSecretScanningSender } from '@keyward/testkit'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { describeBackends } from '../test/databases.js'
import { openTestApp, type TestApp } from '../test/harness.js'

const PATH = '/api/v1/secret-scanning/github'

describeBackends('POST /api/v1/secret-scanning/github (%s)', (backend) => {
  let t: TestApp
  let sender: SecretScanningSender
  beforeAll(async () => {
    sender = await startSecretScanningSender()
    t = await openTestApp(backend, { secretScanning: { keysUrl: sender.keysUrl } })
  })
  afterAll(async () => {
    await t.close()
    await sender.close()
  })

  const alert = (tokens: readonly string[]) =>
    JSON.stringify(
      tokens.map((token, i) => ({
        token,
        type: 'keyward_api_key',
        url: `https://example.com/f${i}`,
        source: 'content',
      })),
    )
  const post = (body: string, headers: Array<[string, string]> = sender.headers(body)) =>
    t.call('POST', PATH, {
      headers: { 'content-type': 'application/json', ...Object.fromEntries(headers) },
      body,
    })

  it('revokes leaked developer and API keys for good, and the owners hear of it', async () => {
    const { projectId, apiKey } = await t.project('Leaky')
    const developerKey = await t.developer('dev-leaky')
    t.events.length = 0
    const answer = await post(alert([apiKey, developerKey, 'AKIAIOSFODNN7EXAMPLE']))
    expect(answer.status).toBe(200)
    expect(answer.body.map((f: { label: string }) => f.label)).toEqual([
      'true_positive',
      'true_positive',
      'false_positive',
    ])
    const token = await t.call('POST', `/api/v1/projects/${projectId}/access-tokens`, {
      headers: { 'x-api-key': apiKey },
    })
    expect([token.status, token.body.detail[0].type]).toEqual([401, 'key_invalid'])
    const listing = await t.call('GET', '/api/v1/auth/developer-keys', {
      headers: { 'x-developer-key': developerKey },
    })
    expect(listing.status).toBe(401)
    const leaked = t.events.filter((e) => e.type === 'key.leaked')
    expect(leaked.map((e) => [e.ownerType, e.ownerId, 'url' in e && e.url])).toEqual([
      ['project', projectId, 'https://example.com/f0'],
      ['developer', 'dev-leaky', 'https://example.com/f1'],
    ])
    expect(JSON.stringify(t.events)).not.toContain(apiKey)
    const rows = await t.rows('SELECT active FROM keyward.api_keys WHERE developer_id = ?', ['dev-leaky'])
    expect(rows).toEqual([{ active: false }])
  })

  it('answers a replayed alert alike and changes nothing more', async () => {
    const { apiKey } = await t.project('Replayed')
    const body = alert([apiKey])
    const first = await post(body)
    t.events.length = 0
    const second = await post(body)
    expect(second.status).toBe(200)
    expect(second.text).toBe(first.text)
    expect(t.events.map((e) => e.type)).toEqual(['key.leaked'])
  })

  it('refuses a forged or unsigned alert with 401, leaving the key working', async () => {
    const { projectId, apiKey } = await t.project('Forged')
    const body = alert([apiKey])
    const forged = await post(body, [
      ['github-public-key-identifier', sender.identifier],
      ['github-public-key-signature', sender.sign(alert(['something else']))],
    ])
    expect([forged.status, forged.body.detail[0].type]).toEqual([401, 'signature_invalid'])
    const unsigned = await post(body, [])
    expect([unsigned.status, unsigned.body.detail[0].type]).toEqual([401, 'signature_missing'])
    const token = await t.call('POST', `/api/v1/projects/${projectId}/access-tokens`, {
      headers: { 'x-api-key': apiKey },
    })
    expect(token.status).toBe(201)
  })

  it('answers 400 for a malformed alert and 413 past 1 MiB', async () => {
    const malformed = await post('{"token":"x"}')
    expect([malformed.status, malformed.body.detail[0].type]).toEqual([400, 'alert_invalid'])
    const huge = alert(Array(12_000).fill('ak_dddddddddddddddddddddddddddddddd'))
    expect(huge.length).toBeGreaterThan(1024 * 1024)
    const tooLarge = await post(huge)
    expect([tooLarge.status, tooLarge.body.detail[0].type]).toEqual([413, 'payload_too_large'])
  })

  it('revokes 1,000 leaked keys with one batched lookup and one batched revocation (and the owner for the audit log)', async () => {
    const { projectId } = await t.project('Thousand')
    // Written straight to the store, one statement each: the alert is what is measured here.
    const keys = Array.from({ length: 1000 }, () => generateKey())
    for (const key of keys) {
      await t.store.insertKey({
        id: crypto.randomUUID(),
        hash: await hashKey(key),
        keyPrefix: keyPrefix(key),
        ownerType: 'project',
        ownerId: projectId,
        name: null,
        active: true,
        createdAt: new Date(),
      })
    }
    const calls: string[] = []
    const store = t.store as unknown as Record<string, (...args: unknown[]) => unknown>
    const methods = [
      'findKeyByHash',
      'findKeysByHashes',
      'findKeyById',
      'deactivateKeys',
      'setKeyActive',
      'query',
      'transaction',
    ]
    for (const method of methods) {
      const original = store[method]!
      store[method] = function (this: unknown, ...args: unknown[]) {
        calls.push(method)
        return original.apply(this, args)
      }
    }
    try {
      const answer = await post(alert(keys))
      expect(answer.status).toBe(200)
      expect(answer.body.every((f: { label: string }) => f.label === 'true_positive')).toBe(true)
    } finally {
      for (const method of methods) delete store[method]
    }
    // The one project's owner is read once, for the rows of the audit log.
    expect(calls).toEqual(['findKeysByHashes', 'query', 'deactivateKeys'])
    const [row] = await t.rows('SELECT count(*) AS n FROM keyward.api_keys WHERE project_id = ? AND active', [
      projectId,
    ])
    // The project's default key, not in the alert, is the one left active.
    expect(row?.n).toBe(1)
  })
})
