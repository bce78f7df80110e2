// The server's own routes refuse a query parameter, as Keyward's key routes do: after the
// credential, before the path and the body, changing nothing, on every backend.
import { afterAll, beforeAll, expect, it } from 'vitest'
import { describeBackends } from '../test/databases.js'
import { openTestApp, type TestApp } from '../test/harness.js'

const GENERATIONS = '/api/v1/generation/generations-v2'

const refusal = (name: string) => ({
  detail: [
    {
      loc: ['query', name],
      msg: `Unknown query parameter \`${name}\`: this takes no query parameters.`,
      type: 'extra_forbidden',
    },
  ],
})

describeBackends('query parameters of the server’s routes (%s)', (backend) => {
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

  const count = async (table: string) =>
    (await t.rows<{ n: number }>(`SELECT count(*) AS n FROM ${table}`))[0]!.n

  it('DELETE of a generation: the token first, then the query, then the path; the generation stays', async () => {
    const created = await t.call('POST', GENERATIONS, { headers: bearer, body: {} })
    const path = `${GENERATIONS}/${created.body.id}`
    const unauthenticated = await t.call('DELETE', `${path}?force=true`)
    expect([unauthenticated.status, unauthenticated.body.detail[0].type]).toEqual([401, 'token_missing'])
    const refused = await t.call('DELETE', `${path}?force=true`, { headers: bearer })
    expect([refused.status, refused.headers.get('cache-control'), refused.body]).toEqual([
      422,
      'no-store',
      refusal('force'),
    ])
    const notUuid = await t.call('DELETE', `${GENERATIONS}/nope?force=true`, { headers: bearer })
    expect(notUuid.body).toEqual(refusal('force'))
    const deleted = await t.call('DELETE', path, { headers: bearer })
    expect([deleted.status, deleted.body]).toEqual([200, { id: created.body.id, deleted: true }])
  })

  it('POST of a generation creates nothing', async () => {
    const before = await count('app.generations')
    const refused = await t.call('POST', `${GENERATIONS}?dry_run=1`, { headers: bearer, body: { a: 1 } })
    expect([refused.status, refused.body]).toEqual([422, refusal('dry_run')])
    expect(await count('app.generations')).toBe(before)
  })

  it('an access token is refused with a query, after the API key is checked', async () => {
    const path = `/api/v1/projects/${projectId}/access-tokens?expires_in=60`
    const unauthenticated = await t.call('POST', path)
    expect([unauthenticated.status, unauthenticated.body.detail[0].type]).toEqual([401, 'key_missing'])
    const refused = await t.call('POST', path, { headers: { 'x-api-key': apiKey } })
    expect([refused.status, refused.body]).toEqual([422, refusal('expires_in')])
  })

  it('DELETE of a project with a query deletes nothing, after both keys are checked', async () => {
    const doomed = await t.project('Kept')
    const path = `/api/v1/projects/${doomed.projectId}?cascade=false`
    const onlyDeveloper = await t.call('DELETE', path, { headers: { 'x-developer-key': t.developerKey } })
    expect([onlyDeveloper.status, onlyDeveloper.body.detail[0].loc]).toEqual([401, ['header', 'x-api-key']])
    const refused = await t.call('DELETE', path, {
      headers: { 'x-developer-key': t.developerKey, 'x-api-key': doomed.apiKey },
    })
    expect([refused.status, refused.body]).toEqual([422, refusal('cascade')])
    const [row] = await t.rows('SELECT id FROM app.projects WHERE id = ?', [doomed.projectId])
    expect(row).toEqual({ id: doomed.projectId })
    const token = await t.call('POST', `/api/v1/projects/${doomed.projectId}/access-tokens`, {
      headers: { 'x-api-key': doomed.apiKey },
    })
    expect(token.status).toBe(201)
  })

  it("Keyward's key routes, as the server mounts them, name the parameter a typo meant", async () => {
    const answer = await t.call('GET', `/api/v1/projects/${projectId}/api-keys?staus=active`, {
      headers: { 'x-developer-key': t.developerKey },
    })
    expect([answer.status, answer.body.detail]).toEqual([
      422,
      [
        {
          loc: ['query', 'staus'],
          msg: 'Unknown query parameter `staus`: did you mean `status`?',
          type: 'extra_forbidden',
        },
      ],
    ])
  })
})
