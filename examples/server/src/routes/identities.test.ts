import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { keywardOver } from '../service.js'
import { describeBackends } from '../test/databases.js'
import { openTestApp, type TestApp, withFailingInserts } from '../test/harness.js'

// biome-ignore lint/suspicious/noExplicitAny: JSON answers read by path in tests
type Json = any

const PER_SECOND = { name: 'requests', limit: 10, duration: 1000 }

describeBackends('identities (%s)', (backend) => {
  let t: TestApp
  let projectId: string
  let base: string
  const dev = () => ({ 'x-developer-key': t.developerKey })
  beforeAll(async () => {
    t = await openTestApp(backend)
    ;({ projectId } = await t.project('Identities'))
    base = `/api/v1/projects/${projectId}/identities`
  })
  afterAll(() => t.close())

  const create = async (body: object, path = base) => {
    const answer = await t.call('POST', path, { headers: dev(), body })
    expect(answer.status, answer.text).toBe(201)
    return answer.body as Json
  }
  const createKey = async (body: object) => {
    const answer = await t.call('POST', `/api/v1/projects/${projectId}/api-keys`, { headers: dev(), body })
    expect(answer.status, answer.text).toBe(201)
    return answer.body as Json
  }
  const verify = async (key: string) =>
    (await t.call('POST', '/api/v1/keys/verify', { headers: dev(), body: { key } })).body as Json

  describe('over HTTP, answered as the OpenAPI document says', () => {
    it('creates, finds by external_id, pages, changes and reads an identity; a duplicate is 409', async () => {
      const acme = await create({
        external_id: 'customer_acme',
        metadata: { plan: 'pro' },
        ratelimits: [PER_SECOND],
        remaining: 100,
        refill: { amount: 100, interval: 'monthly', day: 1 },
      })
      expect(acme).toMatchObject({
        project_id: projectId,
        external_id: 'customer_acme',
        metadata: { plan: 'pro' },
        ratelimits: [PER_SECOND],
        remaining: 100,
        refill: { amount: 100, interval: 'monthly', day: 1 },
      })
      const twice = await t.call('POST', base, { headers: dev(), body: { external_id: 'customer_acme' } })
      expect([twice.status, twice.body.detail[0].type]).toEqual([409, 'identity_exists'])

      const found = await t.call('GET', `${base}?external_id=customer_acme`, { headers: dev() })
      expect(found.body).toEqual({ identities: [acme], next_cursor: null })

      await create({ external_id: 'customer_initech' })
      await create({ external_id: 'customer_globex' })
      const seen: string[] = []
      let cursor: string | null = null
      do {
        const page: Json = await t.call('GET', `${base}?limit=2${cursor ? `&cursor=${cursor}` : ''}`, {
          headers: dev(),
        })
        expect(page.status).toBe(200)
        expect(page.body.identities.length).toBeLessThanOrEqual(2)
        seen.push(...page.body.identities.map((identity: Json) => identity.external_id))
        cursor = page.body.next_cursor
      } while (cursor)
      expect(seen.sort()).toEqual(['customer_acme', 'customer_globex', 'customer_initech'])

      const patched = await t.call('PATCH', `${base}/${acme.id}`, {
        headers: dev(),
        body: { metadata: { plan: 'enterprise' }, ratelimits: null },
      })
      expect(patched).toMatchObject({
        status: 200,
        body: { metadata: { plan: 'enterprise' }, ratelimits: [] },
      })
      const read = await t.call('GET', `${base}/${acme.id}`, { headers: dev() })
      expect(read.body).toEqual(patched.body)
    })

    it('refuses bad and unknown fields 422, and answers another project 404 or 403', async () => {
      for (const [body, type, loc] of [
        [
          { external_id: 'x', ratelimits: [{ ...PER_SECOND, duration: 500 }] },
          'greater_than_equal',
          ['body', 'ratelimits', '0', 'duration'],
        ],
        [{ external_id: 'x', remainig: 5 }, 'extra_forbidden', ['body', 'remainig']],
        [{ external_id: `ak_${'Zq9x'.repeat(8)}` }, 'key_shaped_value', ['body', 'external_id']],
        [{ metadata: {} }, 'missing', ['body', 'external_id']],
      ] as const) {
        const refused = await t.call('POST', base, { headers: dev(), body })
        expect([refused.status, refused.body.detail]).toEqual([422, [{ loc, msg: expect.any(String), type }]])
      }
      const other = await t.project('Other')
      const theirs = await create(
        { external_id: 'customer_acme' },
        `/api/v1/projects/${other.projectId}/identities`,
      )
      const hidden = await t.call('GET', `${base}/${theirs.id}`, { headers: dev() })
      expect([hidden.status, hidden.body.detail[0].loc]).toEqual([404, ['path', 'identity_id']])
      const stranger = await t.developer('dev_stranger')
      const foreign = await t.call('GET', base, { headers: { 'x-developer-key': stranger } })
      expect([foreign.status, foreign.body.detail[0].type]).toEqual([403, 'not_project_owner'])
    })

    it("joins keys by identity_id, external_id and PATCH, lists them, and refuses another project's identity", async () => {
      const team = await create({ external_id: 'customer_team' })
      const staging = await createKey({ name: 'staging', identity_id: team.id })
      const laptop = await createKey({ name: 'laptop', external_id: 'customer_team' })
      const plain = await createKey({ name: 'plain' })
      expect([staging.identity_id, laptop.identity_id, plain.identity_id]).toEqual([team.id, team.id, null])
      const joined = await t.call('PATCH', `/api/v1/projects/${projectId}/api-keys/${plain.id}`, {
        headers: dev(),
        body: { identity_id: team.id },
      })
      expect(joined).toMatchObject({ status: 200, body: { identity_id: team.id } })
      expect(await verify(plain.key)).toMatchObject({
        valid: true,
        identity: { id: team.id, external_id: 'customer_team', metadata: null },
      })
      const keys = await t.call('GET', `${base}/${team.id}/keys`, { headers: dev() })
      expect(keys.body.keys.map((key: Json) => key.id).sort()).toEqual(
        [staging.id, laptop.id, plain.id].sort(),
      )

      const other = await t.project('Another')
      const theirs = await create(
        { external_id: 'customer_x' },
        `/api/v1/projects/${other.projectId}/identities`,
      )
      const refused = await t.call('PATCH', `/api/v1/projects/${projectId}/api-keys/${plain.id}`, {
        headers: dev(),
        body: { identity_id: theirs.id, permissions: [] },
      })
      expect([refused.status, refused.body.detail[0].loc]).toEqual([422, ['body', 'identity_id']])
      const unchanged = await t.call('GET', `/api/v1/projects/${projectId}/api-keys/${plain.id}`, {
        headers: dev(),
      })
      expect(unchanged.body).toMatchObject({ identity_id: team.id, permissions: null })
      const left = await t.call('PATCH', `/api/v1/projects/${projectId}/api-keys/${plain.id}`, {
        headers: dev(),
        body: { identity_id: null },
      })
      expect(left.body.identity_id).toBeNull()
    })

    it('deletes an identity: 409 while keys belong to it; ?revoke_keys=true revokes them in the same transaction', async () => {
      const leaving = await create({ external_id: 'customer_leaving' })
      const one = await createKey({ identity_id: leaving.id })
      const two = await createKey({ identity_id: leaving.id })
      const kept = await t.call('DELETE', `${base}/${leaving.id}`, { headers: dev() })
      expect([kept.status, kept.body.detail[0].type]).toEqual([409, 'identity_has_keys'])
      expect((await verify(one.key)).valid).toBe(true)
      // The revocation fails inside the deletion's transaction: nothing of it is kept.
      await withFailingInserts(t, 'audit_log', "NEW.action = 'identity.deleted'", async () => {
        const failed = await t.call('DELETE', `${base}/${leaving.id}?revoke_keys=true`, { headers: dev() })
        expect(failed.status).toBeGreaterThanOrEqual(500)
      })
      expect((await verify(one.key)).valid).toBe(true)
      expect((await t.call('GET', `${base}/${leaving.id}`, { headers: dev() })).status).toBe(200)

      const deleted = await t.call('DELETE', `${base}/${leaving.id}?revoke_keys=true`, { headers: dev() })
      expect(deleted.status).toBe(200)
      expect(deleted.body.revoked_keys.sort()).toEqual([one.id, two.id].sort())
      for (const key of [one.key, two.key]) {
        expect(await verify(key)).toMatchObject({ valid: false, code: 'key_invalid' })
      }
      expect((await t.call('GET', `${base}/${leaving.id}`, { headers: dev() })).status).toBe(404)
      const rows = await t.call('GET', `/api/v1/audit?project_id=${projectId}&action=identity.deleted`, {
        headers: dev(),
      })
      expect(rows.body.entries).toEqual([
        expect.objectContaining({ target: { type: 'identity', id: leaving.id }, after: null }),
      ])
    })

    it("answers an identity's usage: the counts of its keys", async () => {
      const counted = await create({ external_id: 'customer_counted' })
      const inside = await createKey({ identity_id: counted.id })
      const outside = await createKey({})
      const service = keywardOver(t.store)
      for (const key of [inside.key, inside.key, inside.key, outside.key]) {
        await service.authenticate({ projectKey: key }, { scope: 'project', projectId })
      }
      await service.flushUsage()
      const usage = await t.call('GET', `${base}/${counted.id}/usage?granularity=minute`, { headers: dev() })
      expect(usage.status).toBe(200)
      expect(usage.body.usage).toEqual([
        expect.objectContaining({ key_id: inside.id, outcome: 'accepted', count: 3 }),
      ])
      const other = await t.call('GET', `${base}/${counted.id}/usage?key_id=${outside.id}`, {
        headers: dev(),
      })
      expect([other.status, other.body.detail[0].loc]).toEqual([404, ['query', 'key_id']])
    })
  })
})
