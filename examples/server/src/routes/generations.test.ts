import { SignJWT } from 'jose'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { describeBackends } from '../test/databases.js'
import { keywardTable, openTestApp, type TestApp } from '../test/harness.js'

const GENERATIONS = '/api/v1/generation/generations-v2'
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

describeBackends('generations (%s)', (backend) => {
  let t: TestApp
  let projectId: string
  let apiKey: string
  let bearer: { authorization: string }
  beforeAll(async () => {
    t = await openTestApp(backend)
    ;({ projectId, apiKey } = await t.project())
    bearer = { authorization: `Bearer ${await t.token(projectId, apiKey)}` }
  })
  afterAll(() => t.close())
  // The body as it was stored: PostgreSQL's json column, as its text.
  const bodyText = () => (t.sql.dialect.name === 'postgres' ? 'body::text' : 'body')

  const create = (body: unknown, headers: Record<string, string> = bearer) =>
    t.call('POST', GENERATIONS, { headers, body })

  it('creates a generation of the token’s project from any JSON object, and deletes it', async () => {
    const created = await create({ prompt: 'a cat', options: { n: 2 } })
    expect(created.status).toBe(201)
    expect(created.body).toEqual({
      id: expect.stringMatching(UUID),
      project_id: projectId,
      created_at: expect.any(String),
    })
    const [row] = await t.rows(`SELECT project_id, ${bodyText()} AS body FROM app.generations WHERE id = ?`, [
      created.body.id,
    ])
    expect(row).toEqual({ project_id: projectId, body: '{"prompt":"a cat","options":{"n":2}}' })

    const deleted = await t.call('DELETE', `${GENERATIONS}/${created.body.id}`, { headers: bearer })
    expect([deleted.status, deleted.body]).toEqual([200, { id: created.body.id, deleted: true }])
    const again = await t.call('DELETE', `${GENERATIONS}/${created.body.id}`, { headers: bearer })
    expect([again.status, again.body.detail]).toEqual([
      404,
      [{ loc: ['path', 'generation_id'], msg: 'Generation not found.', type: 'not_found' }],
    ])
  })

  it('keeps JSON that jsonb would refuse (a \\u0000 escape) as it was sent', async () => {
    const sent = '{"text": "a\\u0000b",  "n": 12345678901234567890}'
    const created = await create(sent)
    expect(created.status).toBe(201)
    const [row] = await t.rows(`SELECT ${bodyText()} AS body FROM app.generations WHERE id = ?`, [
      created.body.id,
    ])
    expect(row).toEqual({ body: sent })
  })

  it('refuses a body that is not a JSON object, or too large', async () => {
    const cases: Array<[string, number, string]> = [
      ['[1, 2]', 422, 'dict_type'],
      ['"text"', 422, 'dict_type'],
      ['null', 422, 'dict_type'],
      ['{"open": ', 422, 'json_invalid'],
      ['', 422, 'missing'],
      [JSON.stringify({ text: 'x'.repeat(16 * 1024) }), 413, 'payload_too_large'],
    ]
    for (const [body, status, type] of cases) {
      const answer = await create(body)
      expect([answer.status, answer.body.detail[0].type, answer.body.detail[0].loc]).toEqual([
        status,
        type,
        ['body'],
      ])
    }
    const notUtf8 = await t.app.request(GENERATIONS, {
      method: 'POST',
      headers: bearer,
      body: new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x7d]),
    })
    expect([notUtf8.status, (await notUtf8.json()).detail[0].type]).toEqual([422, 'json_invalid'])
  })

  it('deletes only a generation of the token’s project: another project’s is not found', async () => {
    const other = await t.project('Other')
    const otherBearer = { authorization: `Bearer ${await t.token(other.projectId, other.apiKey)}` }
    const theirs = await create({ n: 1 }, otherBearer)

    const refused = await t.call('DELETE', `${GENERATIONS}/${theirs.body.id}`, { headers: bearer })
    expect([refused.status, refused.body.detail[0].type]).toEqual([404, 'not_found'])
    expect(await t.rows('SELECT id FROM app.generations WHERE id = ?', [theirs.body.id])).toHaveLength(1)

    const owned = await t.call('DELETE', `${GENERATIONS}/${theirs.body.id.toUpperCase()}`, {
      headers: otherBearer,
    })
    expect([owned.status, owned.body]).toEqual([200, { id: theirs.body.id, deleted: true }])
  })

  it('answers 422 uuid_parsing at ["path","generation_id"] for a non-UUID id', async () => {
    for (const id of ['123', 'not-a-uuid', `${crypto.randomUUID()}0`]) {
      const answer = await t.call('DELETE', `${GENERATIONS}/${id}`, { headers: bearer })
      expect([answer.status, answer.body]).toEqual([
        422,
        {
          detail: [
            { loc: ['path', 'generation_id'], msg: 'Input should be a valid UUID.', type: 'uuid_parsing' },
          ],
        },
      ])
    }
  })

  it('refuses a missing, malformed, forged, expired or revoked token with WWW-Authenticate', async () => {
    const id = crypto.randomUUID()
    const forged = await new SignJWT({ project_id: projectId, key_id: crypto.randomUUID() })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer('keyward-server')
      .setAudience('keyward-server/generations')
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode('another-secret-of-at-least-32-characters'))
    const cases: Array<[Record<string, string>, string, string]> = [
      [{}, 'token_missing', 'Bearer'],
      [{ authorization: `Basic ${btoa('a:b')}` }, 'token_missing', 'Bearer'],
      [{ authorization: 'Bearer not a token' }, 'token_invalid', 'Bearer error="invalid_token"'],
      [{ authorization: 'Bearer abc.def.ghi' }, 'token_invalid', 'Bearer error="invalid_token"'],
      [{ authorization: `Bearer ${forged}` }, 'token_invalid', 'Bearer error="invalid_token"'],
    ]
    for (const [headers, type, challenge] of cases) {
      for (const answer of [
        await t.call('POST', GENERATIONS, { headers, body: {} }),
        await t.call('DELETE', `${GENERATIONS}/${id}`, { headers }),
      ]) {
        expect([answer.status, answer.body.detail[0].type, answer.headers.get('www-authenticate')]).toEqual([
          401,
          type,
          challenge,
        ])
      }
    }

    const token = await t.token(projectId, apiKey)
    const start = t.clock.now
    try {
      t.clock.now = new Date(start.getTime() + 901_000)
      const expired = await create({}, { authorization: `Bearer ${token}` })
      expect([expired.status, expired.body.detail[0].type]).toEqual([401, 'token_invalid'])
    } finally {
      t.clock.now = start
    }
  })

  it('ends the tokens of a key that is revoked, expired, or rolled without grace, at once', async () => {
    const dev = { 'x-developer-key': t.developerKey }
    const keys = `/api/v1/projects/${projectId}/api-keys`
    const withToken = async () => {
      const key = await t.call('POST', keys, { headers: dev, body: { expires_in_days: 30 } })
      const headers = { authorization: `Bearer ${await t.token(projectId, key.body.key)}` }
      expect((await create({}, headers)).status).toBe(201)
      return { id: key.body.id as string, headers }
    }
    const refusal = {
      detail: [
        {
          loc: ['header', 'authorization'],
          msg: 'The access token is not valid: it is unknown or expired.',
          type: 'token_invalid',
        },
      ],
    }
    const refusedAfter = async (end: (id: string) => Promise<unknown>) => {
      const { id, headers } = await withToken()
      await end(id)
      for (const answer of [
        await create({}, headers),
        await t.call('DELETE', `${GENERATIONS}/${crypto.randomUUID()}`, { headers }),
      ]) {
        expect([answer.status, answer.body, answer.headers.get('cache-control')]).toEqual([
          401,
          refusal,
          'no-store',
        ])
      }
    }

    await refusedAfter((id) => t.call('DELETE', `${keys}/${id}`, { headers: dev }))
    // Its expiry passed: the key's own verification refuses it, and so do its tokens.
    await refusedAfter((id) =>
      t.sql.run(`UPDATE ${keywardTable(t.store, 'api_keys')} SET expires_at = ? WHERE id = ?`, [
        t.sql.dialect.timeParam(new Date(Date.now() - 1000)),
        id,
      ]),
    )
    await refusedAfter(async (id) => {
      const rolled = await t.call('POST', `${keys}/${id}/roll`, { headers: dev, body: { grace_seconds: 0 } })
      expect(rolled.status).toBe(201)
    })

    // Within a roll's grace window, the old key's tokens work on, as the key does.
    const { id, headers } = await withToken()
    const rolled = await t.call('POST', `${keys}/${id}/roll`, { headers: dev, body: { grace_seconds: 3600 } })
    expect(rolled.status).toBe(201)
    expect((await create({}, headers)).status).toBe(201)
  })
})
