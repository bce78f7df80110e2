import { describe, expect, it } from 'vitest'
import { MemoryKeyStore } from '../store/memory.js'
import { NOW, world } from '../test/key-routes-world.js'

const IDS = '/api/v1/projects/p1/identities'
const PER_SECOND = { name: 'requests', limit: 10, duration: 1000 }

// The routes with a second project, p2, owned by d2.
async function identities(options: Parameters<typeof world>[0] = {}) {
  const w = await world(options)
  w.projects.set('p2', { id: 'p2', name: 'two', developerId: 'd2', createdAt: NOW })
  const create = async (body: object, project = 'p1', key = w.d1) => {
    const r = await w.call('POST', `/api/v1/projects/${project}/identities`, {
      key,
      body: JSON.stringify(body),
    })
    expect(r.status, JSON.stringify(r.json)).toBe(201)
    return r.json
  }
  return { ...w, create }
}

const actions = async (keyward: Awaited<ReturnType<typeof world>>['keyward']) =>
  (await keyward.listAudit('d1')).records.map((row) => `${row.action} ${row.targetType}`)

describe('identity routes', () => {
  it('give an identity roles by name, show them by name in every answer, and clear them with null', async () => {
    const { call, create, d1, keyward } = await identities()
    const billing = await keyward.createRole('p1', { name: 'billing', permissions: [] })
    await keyward.createRole('p1', { name: 'support', permissions: [] })
    const created = await create({ external_id: 'customer_roles', roles: ['billing', 'support'] })
    expect(created.roles).toEqual(['billing', 'support'])
    await keyward.updateRole(billing.id, { name: 'payments' })
    const listed = await call('GET', IDS, { key: d1 })
    expect(listed.json.identities[0].roles).toEqual(['payments', 'support'])
    const found = await call('GET', `${IDS}?external_id=customer_roles`, { key: d1 })
    expect(found.json.identities[0].roles).toEqual(['payments', 'support'])
    const patched = await call('PATCH', `${IDS}/${created.id}`, {
      key: d1,
      body: JSON.stringify({ roles: ['support'] }),
    })
    expect(patched.json.roles).toEqual(['support'])
    const cleared = await call('PATCH', `${IDS}/${created.id}`, { key: d1, body: '{"roles":null}' })
    expect(cleared.json.roles).toBeNull()
    expect((await keyward.findIdentity(created.id))?.roleIds ?? null).toBeNull()
    const unknown = await call('PATCH', `${IDS}/${created.id}`, { key: d1, body: '{"roles":["auditor"]}' })
    expect(unknown.status).toBe(422)
    expect(unknown.json.detail[0]).toMatchObject({ type: 'role_unknown', loc: ['body', 'roles', '0'] })
  })

  it('create an identity in the JSON shape, with its limits and pool, and an audit row', async () => {
    const { call, d1, keyward } = await identities()
    const created = await call('POST', IDS, {
      key: d1,
      body: JSON.stringify({
        external_id: 'customer_acme',
        metadata: { plan: 'pro' },
        ratelimits: [PER_SECOND],
        remaining: 100,
        refill: { amount: 100, interval: 'daily' },
        credits_low_at: { percent: 10 },
      }),
    })
    expect(created.status).toBe(201)
    expect(created.headers['cache-control']).toBe('no-store')
    expect(created.json).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      project_id: 'p1',
      external_id: 'customer_acme',
      metadata: { plan: 'pro' },
      ratelimits: [PER_SECOND],
      remaining: 100,
      refill: { amount: 100, interval: 'daily' },
      credits_low_at: { percent: 10 },
      roles: null,
      created_at: NOW.toISOString(),
      updated_at: NOW.toISOString(),
    })
    expect(await actions(keyward)).toContain('identity.created identity')
    const read = await call('GET', `${IDS}/${created.json.id}`, { key: d1 })
    expect(read).toMatchObject({ status: 200, json: created.json })
  })

  it('refuse a second external_id of the project 409, and bad or unknown fields 422, writing nothing', async () => {
    const { call, d1, keyward, create } = await identities()
    await create({ external_id: 'customer_acme' })
    const cases: [object | undefined, number, string, string[]][] = [
      [{ external_id: 'customer_acme' }, 409, 'identity_exists', ['body', 'external_id']],
      [undefined, 422, 'missing', ['body', 'external_id']],
      [{ external_id: 'x', ratelimit: [] }, 422, 'extra_forbidden', ['body', 'ratelimit']],
      [{ external_id: '' }, 422, 'string_too_short', ['body', 'external_id']],
      [{ external_id: 'x'.repeat(256) }, 422, 'string_too_long', ['body', 'external_id']],
      [{ external_id: `ci ak_${'Zq9x'.repeat(8)}` }, 422, 'key_shaped_value', ['body', 'external_id']],
      [{ external_id: 'x', metadata: [1] }, 422, 'dict_type', ['body', 'metadata']],
      [
        { external_id: 'x', ratelimits: [{ ...PER_SECOND, duration: 1500 }] },
        422,
        'value_error',
        ['body', 'ratelimits', '0', 'duration'],
      ],
      [
        { external_id: 'x', ratelimits: [{ ...PER_SECOND, limt: 5 }] },
        422,
        'extra_forbidden',
        ['body', 'ratelimits', '0', 'limt'],
      ],
      [
        { external_id: 'x', refill: { amount: 5, interval: 'daily' } },
        422,
        'value_error',
        ['body', 'refill'],
      ],
      [{ external_id: 'x', remaining: -1 }, 422, 'greater_than_equal', ['body', 'remaining']],
    ]
    for (const [body, status, type, loc] of cases) {
      const r = await call('POST', IDS, { key: d1, ...(body ? { body: JSON.stringify(body) } : {}) })
      expect({ body, status: r.status, detail: r.json.detail }).toEqual({
        body,
        status,
        detail: [{ loc, msg: expect.any(String), type }],
      })
    }
    const typo = await call('POST', IDS, { key: d1, body: '{"external_id":"x","metdata":{}}' })
    expect(typo.json.detail[0].msg).toBe('Unknown field `metdata`: did you mean `metadata`?')
    expect((await keyward.listIdentitiesPage('p1')).records.map((i) => i.externalId)).toEqual([
      'customer_acme',
    ])
  })

  it('list a page at a time with cursors, and look one up by external_id', async () => {
    const { call, d1, create } = await identities()
    const made = []
    for (const name of ['a', 'b', 'c']) made.push(await create({ external_id: `customer_${name}` }))
    // Created in one instant: the greater id first.
    const newestFirst = made.map((i) => i.id).sort((x, y) => (x < y ? 1 : -1))
    const first = await call('GET', `${IDS}?limit=2`, { key: d1 })
    expect(first.json.identities.map((i: { id: string }) => i.id)).toEqual(newestFirst.slice(0, 2))
    const second = await call('GET', `${IDS}?limit=2&cursor=${first.json.next_cursor}`, { key: d1 })
    expect(second.json).toEqual({
      identities: [expect.objectContaining({ id: newestFirst[2] })],
      next_cursor: null,
    })
    const found = await call('GET', `${IDS}?external_id=customer_b`, { key: d1 })
    expect(found).toMatchObject({ status: 200, json: { identities: [made[1]], next_cursor: null } })
    const none = await call('GET', `${IDS}?external_id=customer_z`, { key: d1 })
    expect(none.json).toEqual({ identities: [], next_cursor: null })
    const shaped = await call('GET', `${IDS}?external_id=ak_${'Zq9x'.repeat(8)}`, { key: d1 })
    expect(shaped).toMatchObject({
      status: 422,
      json: { detail: [{ loc: ['query', 'external_id'], type: 'key_shaped_value' }] },
    })
    const badLimit = await call('GET', `${IDS}?limit=0`, { key: d1 })
    expect(badLimit.json.detail[0].loc).toEqual(['query', 'limit'])
  })

  it('search by ?q= in external ids, any case, a page at a time; refuse a key-shaped or too long one', async () => {
    const { call, d1, create } = await identities()
    for (const id of ['customer_ACME', 'acme-eu', 'globex']) await create({ external_id: id })
    const ids = (json: { identities: { external_id: string }[] }) => json.identities.map((i) => i.external_id)
    const first = await call('GET', `${IDS}?q=Acme&limit=1`, { key: d1 })
    const second = await call('GET', `${IDS}?q=Acme&limit=1&cursor=${first.json.next_cursor}`, { key: d1 })
    expect([...ids(first.json), ...ids(second.json)].sort()).toEqual(['acme-eu', 'customer_ACME'])
    expect(second.json.next_cursor).toBeNull()
    expect(ids((await call('GET', `${IDS}?q=nobody`, { key: d1 })).json)).toEqual([])
    // external_id, when given too, wins.
    expect(ids((await call('GET', `${IDS}?q=acme&external_id=globex`, { key: d1 })).json)).toEqual(['globex'])
    const shaped = await call('GET', `${IDS}?q=ak_${'Zq9x'.repeat(8)}`, { key: d1 })
    expect(shaped).toMatchObject({
      status: 422,
      json: { detail: [{ loc: ['query', 'q'], type: 'key_shaped_value' }] },
    })
    const long = await call('GET', `${IDS}?q=${'x'.repeat(256)}`, { key: d1 })
    expect(long).toMatchObject({
      status: 422,
      json: { detail: [{ loc: ['query', 'q'], type: 'string_too_long' }] },
    })
  })

  it("answer another project's identity 404, and another developer's project 403", async () => {
    const { call, d1, d2, create } = await identities()
    const theirs = await create({ external_id: 'customer_acme' }, 'p2', d2)
    for (const [method, suffix] of [
      ['GET', ''],
      ['PATCH', ''],
      ['DELETE', ''],
      ['GET', '/keys'],
    ] as const) {
      const r = await call(method, `${IDS}/${theirs.id}${suffix}`, { key: d1, body: '{}' })
      expect([method, suffix, r.status, r.json.detail]).toEqual([
        method,
        suffix,
        404,
        [{ loc: ['path', 'identity_id'], msg: 'Identity not found.', type: 'not_found' }],
      ])
    }
    expect((await call('GET', `${IDS}/not-a-uuid`, { key: d1 })).status).toBe(404)
    expect((await call('GET', `${IDS}/${crypto.randomUUID()}`, { key: d1 })).status).toBe(404)
    // p2's own lookup by external id does not see p1's, nor p1's listing p2's.
    expect((await call('GET', `${IDS}?external_id=customer_acme`, { key: d1 })).json.identities).toEqual([])
    const foreign = await call('GET', '/api/v1/projects/p2/identities', { key: d1 })
    expect(foreign).toMatchObject({ status: 403, json: { detail: [{ type: 'not_project_owner' }] } })
  })

  it('change metadata and limits with PATCH, refuse external_id and credits there, and write nothing for {}', async () => {
    const { call, d1, keyward, create } = await identities()
    const acme = await create({ external_id: 'customer_acme', metadata: { plan: 'pro' } })
    const patched = await call('PATCH', `${IDS}/${acme.id}`, {
      key: d1,
      body: JSON.stringify({ metadata: null, ratelimits: [PER_SECOND] }),
    })
    expect(patched).toMatchObject({ status: 200, json: { metadata: null, ratelimits: [PER_SECOND] } })
    for (const [body, type, loc] of [
      ['{"external_id":"other"}', 'value_error', ['body', 'external_id']],
      ['{"remaining":5}', 'value_error', ['body', 'remaining']],
      ['{"metadta":{}}', 'extra_forbidden', ['body', 'metadta']],
      [
        '{"ratelimits":[{"name":"a","limit":0,"duration":1000}]}',
        'greater_than_equal',
        ['body', 'ratelimits', '0', 'limit'],
      ],
    ] as const) {
      const r = await call('PATCH', `${IDS}/${acme.id}`, { key: d1, body })
      expect([body, r.status, r.json.detail[0].type, r.json.detail[0].loc]).toEqual([body, 422, type, loc])
    }
    const rows = (await actions(keyward)).length
    const same = await call('PATCH', `${IDS}/${acme.id}`, { key: d1, body: '{}' })
    expect(same).toMatchObject({ status: 200, json: patched.json })
    expect((await actions(keyward)).length).toBe(rows)
  })

  it("change the pool's low-credits threshold with PATCH, clear it with null, and audit both", async () => {
    const { call, d1, keyward, create } = await identities()
    const pooled = await create({
      external_id: 'customer_pool',
      remaining: 100,
      refill: { amount: 100, interval: 'daily' },
    })
    const path = `${IDS}/${pooled.id}`
    const patch = (body: object) => call('PATCH', path, { key: d1, body: JSON.stringify(body) })
    const patched = await patch({ credits_low_at: { percent: 20 } })
    expect(patched).toMatchObject({ status: 200, json: { credits_low_at: { percent: 20 } } })
    expect((await keyward.findIdentity(pooled.id))?.creditsLowAt).toEqual({ percent: 20 })
    expect((await patch({ metadata: { plan: 'pro' } })).json.credits_low_at).toEqual({ percent: 20 })
    expect((await patch({ credits_low_at: null })).json.credits_low_at).toBeNull()
    expect((await call('GET', path, { key: d1 })).json.credits_low_at).toBeNull()
    const rows = (await keyward.listAudit('d1')).records.filter(
      (row) => row.action === 'identity.updated' && 'credits_low_at' in (row.after ?? {}),
    )
    expect(rows.map((row) => [row.before?.credits_low_at, row.after?.credits_low_at])).toEqual([
      [{ percent: 20 }, null],
      [null, { percent: 20 }],
    ])
    // A set of the pool to none clears it, as the pool's own rules would refuse it.
    await patch({ credits_low_at: { remaining: 5 } })
    const none = await call('POST', `${path}/credits`, { key: d1, body: '{"op":"set","amount":null}' })
    expect(none.json).toMatchObject({ remaining: null, credits_low_at: null })
  })

  it.each([
    ['a threshold of an identity without a pool', {}, { remaining: 5 }, ['body', 'credits_low_at']],
    [
      'a percent of a pool without a refill',
      { remaining: 10 },
      { percent: 10 },
      ['body', 'credits_low_at', 'percent'],
    ],
    [
      'a percent of 0',
      { remaining: 10, refill: { amount: 10, interval: 'daily' } },
      { percent: 0 },
      ['body', 'credits_low_at', 'percent'],
    ],
    ['a string', { remaining: 10 }, '5', ['body', 'credits_low_at']],
  ])('refuse to PATCH %s with 422 in the error format, changing nothing', async (_, pool, lowAt, loc) => {
    const { call, d1, keyward, create } = await identities()
    const identity = await create({ external_id: 'customer_refused', ...pool })
    const before = await keyward.findIdentity(identity.id)
    const refused = await call('PATCH', `${IDS}/${identity.id}`, {
      key: d1,
      body: JSON.stringify({ metadata: { plan: 'pro' }, credits_low_at: lowAt }),
    })
    expect(refused.status).toBe(422)
    expect(refused.json.detail).toEqual([
      expect.objectContaining({ loc, msg: expect.any(String), type: expect.any(String) }),
    ])
    expect(await keyward.findIdentity(identity.id)).toEqual(before)
  })

  it('delete an identity without keys; one with keys only with revoke_keys=true, which revokes them', async () => {
    const { call, d1, keyward, create } = await identities()
    const empty = await create({ external_id: 'customer_empty' })
    const gone = await call('DELETE', `${IDS}/${empty.id}`, { key: d1 })
    expect(gone).toMatchObject({ status: 200, json: { id: empty.id, deleted: true, revoked_keys: [] } })
    expect((await call('GET', `${IDS}/${empty.id}`, { key: d1 })).status).toBe(404)

    const acme = await create({ external_id: 'customer_acme' })
    const issued = await call('POST', '/api/v1/projects/p1/api-keys', {
      key: d1,
      body: JSON.stringify({ identity_id: acme.id }),
    })
    expect(issued).toMatchObject({ status: 201, json: { identity_id: acme.id } })
    const kept = await call('DELETE', `${IDS}/${acme.id}`, { key: d1 })
    expect(kept).toMatchObject({
      status: 409,
      json: { detail: [{ loc: ['path', 'identity_id'], type: 'identity_has_keys' }] },
    })
    const bad = await call('DELETE', `${IDS}/${acme.id}?revoke_keys=yes`, { key: d1 })
    expect(bad).toMatchObject({ status: 422, json: { detail: [{ loc: ['query', 'revoke_keys'] }] } })
    const auth = () =>
      keyward.authenticate({ projectKey: issued.json.key }, { scope: 'project', projectId: 'p1' })
    await expect(auth()).resolves.toMatchObject({ identity: { id: acme.id } })
    const revoked = await call('DELETE', `${IDS}/${acme.id}?revoke_keys=true`, { key: d1 })
    expect(revoked).toMatchObject({
      status: 200,
      json: { id: acme.id, deleted: true, revoked_keys: [issued.json.id] },
    })
    await expect(auth()).rejects.toMatchObject({ type: 'key_invalid' })
    expect(await actions(keyward)).toEqual(
      expect.arrayContaining(['identity.deleted identity', 'key.revoked key']),
    )
  })

  it("join keys at creation by identity_id or external_id, and by PATCH; list an identity's keys", async () => {
    const { call, d1, d2, create } = await identities()
    const acme = await create({ external_id: 'customer_acme' })
    const byId = await call('POST', '/api/v1/projects/p1/api-keys', {
      key: d1,
      body: JSON.stringify({ name: 'staging', identity_id: acme.id }),
    })
    const byExternal = await call('POST', '/api/v1/projects/p1/api-keys', {
      key: d1,
      body: JSON.stringify({ name: 'laptop', external_id: 'customer_acme' }),
    })
    expect(byExternal.json.identity_id).toBe(acme.id)
    // A new external id creates its identity.
    const fresh = await call('POST', '/api/v1/projects/p1/api-keys', {
      key: d1,
      body: JSON.stringify({ external_id: 'customer_initech' }),
    })
    const initech = await call('GET', `${IDS}?external_id=customer_initech`, { key: d1 })
    expect(fresh.json.identity_id).toBe(initech.json.identities[0].id)

    const plain = (await call('POST', '/api/v1/projects/p1/api-keys', { key: d1, body: '{"name":"plain"}' }))
      .json
    expect(plain.identity_id).toBeNull()
    const joined = await call('PATCH', `/api/v1/projects/p1/api-keys/${plain.id}`, {
      key: d1,
      body: JSON.stringify({ identity_id: acme.id, metadata: { team: 'ops' } }),
    })
    expect(joined).toMatchObject({ status: 200, json: { identity_id: acme.id, metadata: { team: 'ops' } } })

    const first = await call('GET', `${IDS}/${acme.id}/keys?limit=2`, { key: d1 })
    const second = await call('GET', `${IDS}/${acme.id}/keys?limit=2&cursor=${first.json.next_cursor}`, {
      key: d1,
    })
    const listed = [...first.json.keys, ...second.json.keys]
    expect(listed.map((k: { id: string }) => k.id).sort()).toEqual(
      [byId.json.id, byExternal.json.id, plain.id].sort(),
    )
    expect(second.json.next_cursor).toBeNull()
    expect(listed.every((k: object) => !('key' in k))).toBe(true)

    const left = await call('PATCH', `/api/v1/projects/p1/api-keys/${plain.id}`, {
      key: d1,
      body: '{"identity_id":null}',
    })
    expect(left).toMatchObject({ status: 200, json: { identity_id: null } })

    // Another project's identity, or none: 422 at the field, and nothing of the body is written.
    const theirs = await create({ external_id: 'customer_acme' }, 'p2', d2)
    for (const id of [theirs.id, crypto.randomUUID(), 'not-a-uuid']) {
      const refused = await call('PATCH', `/api/v1/projects/p1/api-keys/${plain.id}`, {
        key: d1,
        body: JSON.stringify({ identity_id: id, metadata: { team: 'changed' } }),
      })
      expect(refused).toMatchObject({
        status: 422,
        json: { detail: [{ loc: ['body', 'identity_id'], type: 'value_error' }] },
      })
      const created = await call('POST', '/api/v1/projects/p1/api-keys', {
        key: d1,
        body: JSON.stringify({ name: 'refused', identity_id: id }),
      })
      expect(created).toMatchObject({ status: 422, json: { detail: [{ loc: ['body', 'identity_id'] }] } })
    }
    const after = await call('GET', `/api/v1/projects/p1/api-keys/${plain.id}`, { key: d1 })
    expect(after.json).toMatchObject({ identity_id: null, metadata: { team: 'ops' } })
    const both = await call('POST', '/api/v1/projects/p1/api-keys', {
      key: d1,
      body: JSON.stringify({ identity_id: acme.id, external_id: 'customer_acme' }),
    })
    expect(both).toMatchObject({ status: 422, json: { detail: [{ loc: ['body', 'identity_id'] }] } })
  })

  it("answer an identity's usage as the counts of its keys, and 404 for a key_id of another", async () => {
    const { call, d1, keyward, create } = await identities({ service: { now: () => new Date() } })
    const acme = await create({ external_id: 'customer_acme' })
    const issue = async (body: object) =>
      (await call('POST', '/api/v1/projects/p1/api-keys', { key: d1, body: JSON.stringify(body) })).json
    const one = await issue({ identity_id: acme.id })
    const two = await issue({ identity_id: acme.id })
    const outside = await issue({})
    const use = (key: string) =>
      keyward.authenticate({ projectKey: key }, { scope: 'project', projectId: 'p1' })
    await use(one.key)
    await use(one.key)
    await use(two.key)
    await use(outside.key)
    await keyward.flushUsage()
    const usage = await call('GET', `${IDS}/${acme.id}/usage?granularity=minute`, { key: d1 })
    expect(usage.status).toBe(200)
    const counts = Object.fromEntries(
      usage.json.usage.map((row: { key_id: string; count: number }) => [row.key_id, row.count]),
    )
    expect(counts).toEqual({ [one.id]: 2, [two.id]: 1 })
    const onlyTwo = await call('GET', `${IDS}/${acme.id}/usage?key_id=${two.id}`, { key: d1 })
    expect(onlyTwo.json.usage.map((row: { key_id: string }) => row.key_id)).toEqual([two.id])
    const other = await call('GET', `${IDS}/${acme.id}/usage?key_id=${outside.id}`, { key: d1 })
    expect(other).toMatchObject({
      status: 404,
      json: { detail: [{ loc: ['query', 'key_id'], type: 'not_found' }] },
    })
    const bad = await call('GET', `${IDS}/${acme.id}/usage?granularity=week`, { key: d1 })
    expect(bad).toMatchObject({ status: 422, json: { detail: [{ loc: ['query', 'granularity'] }] } })
  })

  it('are not mounted over a store that keeps no identities', async () => {
    const store = Object.assign(new MemoryKeyStore(), { identities: undefined })
    const { routes } = await world({ service: { store } })
    expect(routes.some((route) => route.path.includes('/identities'))).toBe(false)
  })
})
